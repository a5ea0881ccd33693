import MarkdownIt from 'markdown-it';

/**
 * Descriptions are Markdown written by anyone who publishes: raw HTML is shown as text, never parsed,
 * and markdown-it refuses javascript:, vbscript: and data: links by itself. Links leave with
 * rel="nofollow ugc noopener", so a catalog lends no rank to what strangers link to.
 */
const md = new MarkdownIt({ html: false, linkify: true, typographer: false });
const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, i, options, _env, self) => self.renderToken(tokens, i, options));
md.renderer.rules.link_open = (tokens, i, options, env, self) => {
  tokens[i]!.attrSet('rel', 'nofollow ugc noopener');
  return defaultLinkOpen(tokens, i, options, env, self);
};

/** Safe HTML for a description. */
export const renderMarkdown = (text: string) => md.render(text);
