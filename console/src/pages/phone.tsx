export function PhonePage({ projectId }: { projectId: string }) {
  return (
    <main>
      <h1>Phone</h1>
      <p>{projectId}</p>
    </main>
  );
}
