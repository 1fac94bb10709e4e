// Server-sent events (WHATWG "text/event-stream" parsing rules): fields `event` and `data`,
// lines ending in \n, \r\n or \r, a blank line dispatches, `:` lines are comments.

export interface SseEvent {
  event: string;
  data: string;
}

export async function* parseSse(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent, void, undefined> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let sawField = false;
  let skipLf = false;

  function* lines(text: string): Generator<string> {
    buffer += text;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const ch = buffer.charCodeAt(i);
      if (skipLf) {
        skipLf = false;
        if (ch === 10) {
          start = i + 1;
          continue;
        }
      }
      if (ch === 10 || ch === 13) {
        yield buffer.slice(start, i);
        start = i + 1;
        if (ch === 13) skipLf = true;
      }
    }
    buffer = buffer.slice(start);
  }

  function* take(text: string): Generator<SseEvent> {
    for (const line of lines(text)) {
      if (line === '') {
        if (sawField && data.length) yield { event: event || 'message', data: data.join('\n') };
        event = '';
        data = [];
        sawField = false;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      sawField = true;
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
  }

  for await (const chunk of chunks) yield* take(decoder.decode(chunk, { stream: true }));
  // An event not ended by a blank line at end of stream is discarded (as the spec says).
  yield* take(decoder.decode());
}
