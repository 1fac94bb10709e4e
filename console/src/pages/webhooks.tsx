export function WebhooksPage({ projectId }: { projectId: string }) {
  return (
    <main>
      <h1>Webhooks</h1>
      <p>{projectId}</p>
    </main>
  );
}
