// The public URL of one media process (issue 21). PUBLIC_MEDIA_URL may be a template: `{index}`
// (the process's number on its host, 0..MEDIA_PROCESSES-1) and `{port}` (its media port) are
// filled in, e.g. `wss://voice.example.com/media/{index}` behind nginx with one path prefix per
// process. Without placeholders the URL's port is replaced by the process's port when the host
// runs several processes (`ws://10.0.0.5:8081` → `ws://10.0.0.5:8082` for the second one).

export function mediaPublicUrl(template: string, port: number, index: number, processes: number): string {
  if (/\{index\}|\{port\}/.test(template)) return template.replaceAll('{index}', String(index)).replaceAll('{port}', String(port));
  if (processes <= 1) return template;
  const url = new URL(template);
  if (!url.port) {
    throw new Error(
      `MEDIA_PROCESSES=${processes} needs a PUBLIC_MEDIA_URL with a port or an {index}/{port} placeholder (one public address per process), not ${template}`,
    );
  }
  url.port = String(port);
  return url.toString().replace(/\/+$/, '');
}
