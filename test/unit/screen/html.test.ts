import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../../widget/screen/html';

describe('escapeHtml', () => {
  it('leaves nothing that could open a tag, end an attribute or start an entity', () => {
    expect(escapeHtml(`<a href="x" title='y'>Tom & Jerry</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;');
    expect(escapeHtml('plain text, 9,99 €')).toBe('plain text, 9,99 €');
  });
});
