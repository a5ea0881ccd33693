import { fetchText, ProvisionError } from './download.ts';

/**
 * The download URL of `filename` in a Python package index's simple API (`<index>/simple/<project>/`):
 * PEP 691's JSON where the index speaks it (pypi.org), PEP 503's HTML otherwise (most mirrors), so a
 * PYPI_URL pointing at a company mirror works as well. The file's checksum is pinned by the caller.
 */
export async function findWheel(indexUrl: string, project: string, filename: string): Promise<string> {
  const page = `${indexUrl}/simple/${project}/`;
  const { text, contentType } = await fetchText(page, 'application/vnd.pypi.simple.v1+json, text/html;q=0.1');
  let href: string | undefined;
  if (contentType.includes('json')) {
    const files = (JSON.parse(text) as { files?: Array<{ filename: string; url: string }> }).files ?? [];
    href = files.find((f) => f.filename === filename)?.url;
  } else {
    for (const [, link, name] of text.matchAll(/<a\s[^>]*href="([^"]+)"[^>]*>\s*([^<\s]+)\s*<\/a>/gi)) {
      if (name === filename) href = link!.replace(/&amp;/g, '&');
    }
  }
  if (!href) throw new ProvisionError(`${page} does not list ${filename}`);
  return new URL(href, page).href;
}
