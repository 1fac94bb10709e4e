// A campaign's rows as a person pastes them: a JSON array of row objects (sent as they are), or
// CSV whose first line names the columns: `to`, then the agent's variable names (a `timezone`
// column is the row's own time zone). Each row keeps the line it came from, so the service's
// errors (at ["body","rows",i,...]) can be shown against the line the person wrote.

export interface RowInput {
  to: string;
  variables?: Record<string, string>;
  timezone?: string;
  [field: string]: unknown;
}

export interface ParsedRows {
  format: 'csv' | 'json' | 'empty';
  rows: RowInput[];
  /** The 1-based line each row starts on (CSV only). */
  lines: (number | null)[];
  /** Why the text could not be read, or null. */
  error: string | null;
}

/** CSV records (RFC 4180: quoted cells may hold commas, doubled quotes and line breaks), each with its first line. */
function csvRecords(text: string): { cells: string[]; line: number }[] | string {
  const out: { cells: string[]; line: number }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line++;
        cell += ch;
      }
    } else if (ch === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (ch === ',') {
      cells.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      cells.push(cell);
      out.push({ cells, line: start });
      cells = [];
      cell = '';
      line++;
      start = line;
    } else cell += ch;
  }
  if (quoted) return `line ${start}: a quoted cell is not closed`;
  cells.push(cell);
  out.push({ cells, line: start });
  return out.map((r) => ({ ...r, cells: r.cells.map((c) => c.trim()) })).filter((r) => r.cells.some((c) => c !== ''));
}

function parseCsv(text: string): ParsedRows {
  const fail = (error: string): ParsedRows => ({ format: 'csv', rows: [], lines: [], error });
  const records = csvRecords(text);
  if (typeof records === 'string') return fail(records);
  const [header, ...body] = records;
  const names = header.cells;
  if (names[0]?.toLowerCase() !== 'to') return fail('line 1 names the columns: "to" first, then the agent\'s variable names (for example to,first_name)');
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup !== undefined) return fail(`line 1: the column "${dup}" is named twice`);
  if (names.some((n) => n === '')) return fail('line 1: a column has no name');
  if (body.length === 0) return fail('no rows below the header line');
  const rows: RowInput[] = [];
  for (const r of body) {
    if (r.cells.length > names.length) return fail(`line ${r.line}: ${r.cells.length} cells, but line 1 names ${names.length} columns`);
    const row: RowInput = { to: r.cells[0] ?? '' };
    const variables: Record<string, string> = {};
    names.slice(1).forEach((name, k) => {
      const value = r.cells[k + 1] ?? '';
      if (value === '') return; // an empty cell leaves the variable out (optional variables)
      if (name.toLowerCase() === 'timezone') row.timezone = value;
      else variables[name] = value;
    });
    if (Object.keys(variables).length) row.variables = variables;
    rows.push(row);
  }
  return { format: 'csv', rows, lines: body.map((r) => r.line), error: null };
}

function parseJson(text: string): ParsedRows {
  const fail = (error: string): ParsedRows => ({ format: 'json', rows: [], lines: [], error });
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return fail(`not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(data)) return fail('JSON rows are an array of objects such as [{"to": "+14155550123", "variables": {"first_name": "Ada"}}]');
  if (data.length === 0) return fail('the JSON array has no rows');
  const bad = data.findIndex((r) => r === null || typeof r !== 'object' || Array.isArray(r));
  if (bad >= 0) return fail(`row ${bad + 1} is not an object`);
  return { format: 'json', rows: data as RowInput[], lines: data.map(() => null), error: null };
}

/** Reads pasted rows: JSON when the text starts with `[`, CSV otherwise. */
export function parseRows(text: string): ParsedRows {
  const trimmed = text.trim();
  if (trimmed === '') return { format: 'empty', rows: [], lines: [], error: null };
  return trimmed.startsWith('[') ? parseJson(trimmed) : parseCsv(text.replace(/^\uFEFF/, ''));
}
