/**
 * A strict RFC 4180 reader, written apart from the exporter so the tests check the format, not
 * the exporter against itself: records end in CRLF, a quoted field may hold commas, CR, LF and
 * doubled quotes, and anything else (a bare quote inside an unquoted field, text after a closing
 * quote, a lone LF between records, an unterminated quote) is an error.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let index = 0;
  const fail = (what: string) => {
    throw new Error(`CSV: ${what} at offset ${index}: ${JSON.stringify(text.slice(index, index + 20))}`);
  };
  while (index < text.length) {
    let field = "";
    if (text[index] === '"') {
      index++;
      for (;;) {
        if (index >= text.length) fail("unterminated quoted field");
        const character = text[index] as string;
        if (character === '"') {
          if (text[index + 1] === '"') {
            field += '"';
            index += 2;
            continue;
          }
          index++;
          break;
        }
        field += character;
        index++;
      }
    } else {
      while (index < text.length && !/[,\r\n]/.test(text[index] as string)) {
        if (text[index] === '"') fail("quote inside an unquoted field");
        field += text[index];
        index++;
      }
    }
    record.push(field);
    if (text[index] === ",") {
      index++;
      continue;
    }
    if (text.startsWith("\r\n", index)) {
      index += 2;
      records.push(record);
      record = [];
      continue;
    }
    if (index < text.length) fail("expected a comma or CRLF");
  }
  if (record.length > 0) fail("last record does not end in CRLF");
  return records;
}

/** Records as objects keyed by the header row; every record must have the header's field count. */
export function parseCsvObjects(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error("CSV: no header row");
  return rows.map((row, line) => {
    if (row.length !== header.length) {
      throw new Error(`CSV: record ${line + 2} has ${row.length} fields, the header ${header.length}`);
    }
    return Object.fromEntries(header.map((name, column) => [name, row[column] as string]));
  });
}
