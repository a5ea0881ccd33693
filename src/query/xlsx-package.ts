import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { zipStream } from './zip-stream.ts';

/**
 * An XLSX file streamed: the few fixed parts of a one-sheet workbook, then the sheet, its rows taken as
 * they come (already XML, rendered by DuckDB: export-sql.ts) and deflated on the way into the zip. Nothing
 * holds more than a stream's buffers, whatever the number of rows; strings are inline, so there is no
 * shared-strings table to build in memory first.
 */

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';
const TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml';

const PARTS: Array<[string, string]> = [
  [
    '[Content_Types].xml',
    `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      `<Override PartName="/xl/workbook.xml" ContentType="${TYPE}.sheet.main+xml"/>` +
      `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${TYPE}.worksheet+xml"/>` +
      `<Override PartName="/xl/styles.xml" ContentType="${TYPE}.styles+xml"/></Types>`,
  ],
  [
    '_rels/.rels',
    `${XML}<Relationships xmlns="${PACKAGE_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  ],
  [
    'xl/workbook.xml',
    `${XML}<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="data" sheetId="1" r:id="rId1"/></sheets></workbook>`,
  ],
  [
    'xl/_rels/workbook.xml.rels',
    `${XML}<Relationships xmlns="${PACKAGE_REL}">` +
      `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
      `<Relationship Id="rId2" Type="${REL}/styles" Target="styles.xml"/></Relationships>`,
  ],
  [
    // The least a spreadsheet application accepts without offering to repair the file.
    'xl/styles.xml',
    `${XML}<styleSheet xmlns="${MAIN}"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts>` +
      '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
      '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
      '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
      '<cellXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/></cellXfs></styleSheet>',
  ],
];

/**
 * Writes the workbook to `out`: `headerRow` (a `<row>` element) first, then every byte of `rows`, which
 * must be `<row>` elements separated by nothing but white space. Level 1 deflate: the sheet is most of
 * the file and most of the time, and level 1 takes a third of the default's time for a few per cent more bytes.
 */
export async function writeXlsx(headerRow: string, rows: AsyncIterable<Buffer>, out: Writable): Promise<void> {
  async function* sheet() {
    yield Buffer.from(`${XML}<worksheet xmlns="${MAIN}"><sheetData>${headerRow}`);
    yield* rows;
    yield Buffer.from('</sheetData></worksheet>');
  }
  const parts = [...PARTS.map(([name, text]) => ({ name, data: Buffer.from(text) })), { name: 'xl/worksheets/sheet1.xml', data: sheet() }];
  await pipeline(Readable.from(zipStream(parts, 1), { objectMode: false }), out);
}
