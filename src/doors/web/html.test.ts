import { describe, expect, it } from 'vitest';
import { prefersHtml } from './headers.js';
import { feedPath, html, raw, webUrl } from './html.js';

describe('html', () => {
  it('escapes every interpolation, in text and in attributes, and keeps fragments it built', () => {
    const title = `<script>alert("x")</script>&'`;
    const inner = html`<em>${title}</em>`;
    expect(html`<a title="${title}">${inner}</a>${[title, 1]}${undefined}${false}`.text).toBe(
      '<a title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"><em>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</em></a>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;1',
    );
    expect(html`${raw('<br>')}`.text).toBe('<br>');
  });

  it('builds feed paths from ids with each segment encoded', () => {
    expect(feedPath('agents', '../x?y#z')).toBe('/feed/agents/..%2Fx%3Fy%23z');
  });

  it('links only http(s) URLs', () => {
    expect(webUrl('https://a.example/x')).toBe('https://a.example/x');
    for (const bad of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<b>',
      ' javascript:x',
      'not a url',
      42,
    ])
      expect(webUrl(bad), String(bad)).toBeUndefined();
  });
});

describe('prefersHtml', () => {
  it("is a browser's Accept, not a client's", () => {
    expect(prefersHtml('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(true);
    expect(prefersHtml('text/html')).toBe(true);
    for (const accept of [
      undefined,
      '',
      '*/*',
      'application/json',
      'application/a2a+json',
      'application/json, text/html;q=0.5',
      'text/html;q=0',
    ]) {
      expect(prefersHtml(accept), String(accept)).toBe(false);
    }
  });
});
