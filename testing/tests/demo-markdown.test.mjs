// The demo page's Markdown renderer (www/markdown.js), run in Node: every input is untrusted
// model or tool text, so the table checks both the few rules it applies and that no tag or
// attribute from the input survives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { renderMarkdown } from "../../www/markdown.js";

const cases = [
  ["plain paragraph", "hello", "<p>hello</p>"],
  ["lines of a paragraph", "one\ntwo", "<p>one<br>two</p>"],
  ["heading sits under the page's own headings", "# Title", "<h3>Title</h3>"],
  ["bold and italics", "**b** and *i* and _u_", "<p><strong>b</strong> and <em>i</em> and <em>u</em></p>"],
  ["snake_case stays plain", "get_sum_total", "<p>get_sum_total</p>"],
  ["inline code keeps its stars", "`a*b*c`", "<p><code>a*b*c</code></p>"],
  ["bullet list", "- a\n- b", "<ul><li>a</li><li>b</li></ul>"],
  ["numbered list", "1. a\n2. b", "<ol><li>a</li><li>b</li></ol>"],
  ["list then paragraph", "- a\n\nafter", "<ul><li>a</li></ul>\n<p>after</p>"],
  ["code block", "```js\nlet x = 1 < 2;\n```", '<pre><code data-language="js">let x = 1 &lt; 2;</code></pre>'],
  ["unclosed code block runs to the end", "```\nstill", "<pre><code>still</code></pre>"],
  ["https link", "[docs](https://example.org/a?b=1&c=2)",
    '<p><a href="https://example.org/a?b=1&amp;c=2" target="_blank" rel="noopener noreferrer">docs</a></p>'],
  ["javascript link stays text", "[x](javascript:alert(1))", "<p>[x](javascript:alert(1))</p>"],
  ["data link stays text", "[x](data:text/html,hi)", "<p>[x](data:text/html,hi)</p>"],
  ["img onerror is escaped", "<img src=x onerror=alert(1)>", "<p>&lt;img src=x onerror=alert(1)&gt;</p>"],
  ["script is escaped", "<script>window.pwned = 1</script>", "<p>&lt;script&gt;window.pwned = 1&lt;/script&gt;</p>"],
  ["quotes cannot leave a link's href", '[x](https://a.example/"onmouseover="alert(1))',
    '<p><a href="https://a.example/&quot;onmouseover=&quot;alert(1" target="_blank" rel="noopener noreferrer">x</a>)</p>'],
  ["html in a code block is escaped", "```\n<b>x</b>\n```", "<pre><code>&lt;b&gt;x&lt;/b&gt;</code></pre>"],
  ["NUL cannot forge a code placeholder", "a\u00000\u0000b `c`", "<p>a0b <code>c</code></p>"],
];

for (const [name, input, expected] of cases) {
  test(`markdown: ${name}`, () => {
    assert.equal(renderMarkdown(input), expected);
  });
}

test("markdown: no input tag survives, whatever the rules do around it", () => {
  const payloads = ["<img src=x onerror=alert(1)>", "<script>alert(1)</script>", '<a href="javascript:x">y</a>'];
  const wrappers = [(p) => p, (p) => `**${p}**`, (p) => `- ${p}`, (p) => `# ${p}`, (p) => `[${p}](https://a.example)`];
  for (const payload of payloads) {
    for (const wrap of wrappers) {
      const html = renderMarkdown(wrap(payload));
      assert.doesNotMatch(html, /<(img|script)\b|javascript:x"/i, html);
    }
  }
});
