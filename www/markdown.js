// A deliberately small Markdown renderer for untrusted text (model answers, tool output).
// Safety comes from the order of work: every character of the input is HTML-escaped FIRST, and
// only then do a few rules add tags of their own; links are kept only for http(s) URLs. So no
// tag, attribute or script from the input can reach the DOM.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (character) => ESCAPES[character]);
}

/** Marks code spans while other inline rules run; NUL never survives input cleaning. */
const HOLE = "\u0000";

/** Inline rules over one already-escaped line: code, links, bold, italics. */
function renderInline(escaped) {
  const codeSpans = [];
  let html = escaped.replace(/`([^`]+)`/g, (_, code) => {
    codeSpans.push(`<code>${code}</code>`);
    return `${HOLE}${codeSpans.length - 1}${HOLE}`;
  });
  html = html.replace(
    /\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g,
    (_, label, url) => `<a href="${url}" target="_blank" rel="noopener noreferrer">${label}</a>`,
  );
  html = html.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
  html = html.replace(/(^|[^\w*])\*([^*\s][^*]*?)\*(?![\w*])/g, "$1<em>$2</em>");
  html = html.replace(/(^|[^\w])_([^_\s][^_]*?)_(?!\w)/g, "$1<em>$2</em>");
  return html.replace(new RegExp(`${HOLE}(\\d+)${HOLE}`, "g"), (_, index) => codeSpans[Number(index)]);
}

/** Renders `text` to an HTML string that is safe to assign to `innerHTML`. */
export function renderMarkdown(text) {
  const lines = String(text).replaceAll(HOLE, "").replace(/\r\n?/g, "\n").split("\n");
  const out = [];
  let paragraph = [];
  let list = null;

  const flushParagraph = () => {
    if (paragraph.length > 0) out.push(`<p>${paragraph.map(renderInline).join("<br>")}</p>`);
    paragraph = [];
  };
  const flushList = () => {
    if (list) out.push(`<${list.tag}>${list.items.map((item) => `<li>${item}</li>`).join("")}</${list.tag}>`);
    list = null;
  };
  const flush = () => {
    flushParagraph();
    flushList();
  };

  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index];
    const fence = /^\s*```\s*([\w+-]*)\s*$/.exec(line);
    if (fence) {
      flush();
      const code = [];
      index += 1;
      // An unclosed fence (a stream still arriving) runs to the end.
      while (index < lines.length && !/^\s*```\s*$/.test(lines[index])) {
        code.push(lines[index]);
        index += 1;
      }
      const language = fence[1] ? ` data-language="${escapeHtml(fence[1])}"` : "";
      out.push(`<pre><code${language}>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    const escaped = escapeHtml(line);
    const heading = /^(#{1,6})\s+(.*)$/.exec(escaped);
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(escaped);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(escaped);
    if (heading) {
      flush();
      const level = Math.min(heading[1].length + 2, 6);
      out.push(`<h${level}>${renderInline(heading[2])}</h${level}>`);
    } else if (bullet || numbered) {
      flushParagraph();
      const tag = bullet ? "ul" : "ol";
      if (list?.tag !== tag) flushList();
      list ??= { tag, items: [] };
      list.items.push(renderInline((bullet ?? numbered)[1]));
    } else if (escaped.trim() === "") {
      flush();
    } else {
      flushList();
      paragraph.push(escaped);
    }
  }
  flush();
  return out.join("\n");
}
