// `{{name}}` placeholders in the prompt and greeting (contract §4): declared variables take
// the session's value, absent optional ones render as "". Unknown names stay as written, so a
// literal "{{...}}" in a prompt is not eaten.

const PLACEHOLDER = /\{\{\s*([a-zA-Z_][a-zA-Z0-9_]{0,63})\s*\}\}/g;

export function renderTemplate(text: string, declared: readonly string[], values: Record<string, string>): string {
  const known = new Set(declared);
  return text.replace(PLACEHOLDER, (whole, name: string) => (known.has(name) ? (values[name] ?? '') : whole));
}
