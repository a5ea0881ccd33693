import yazl from 'yazl';

/** A real zip archive (a wheel, a jar) holding `members`, each executable. */
export function zip(members: Record<string, Buffer>): Promise<Buffer> {
  const file = new yazl.ZipFile();
  for (const [name, data] of Object.entries(members)) file.addBuffer(data, name, { mode: 0o100755 });
  file.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    file.outputStream.on('data', (c: Buffer) => chunks.push(c));
    file.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    file.outputStream.on('error', reject);
  });
}
