import assert from 'node:assert/strict';
import { cents, relativeTime, signed } from '../../api/web/format.js';
import { html } from '../../api/html/template.js';

describe('dashboard templates #unit', () => {
  it('when data is interpolated, then it is escaped, attributes included, and only html templates stay markup', () => {
    const name = `<img src=x onerror="alert('x')">&`;
    const page = html`<p title="${name}">${name}${html`<b>${'ok'}</b>`}</p>`.text;
    assert.equal(
      page,
      '<p title="&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;">' +
        '&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;&amp;<b>ok</b></p>',
    );
  });

  it('when a list, a number or nothing is interpolated, then lists are joined, numbers written and null/undefined/false left out', () => {
    const rows = ['a<', 'b'].map((x) => html`<li>${x}</li>`);
    // prettier-ignore
    const list = html`<ul>${rows}</ul>${null}${undefined}${false}${0}`.text;
    assert.equal(list, '<ul><li>a&lt;</li><li>b</li></ul>0');
  });

  it('when prices, amounts and times are shown, then they read as cents, signed money and relative times', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    assert.equal(cents(0.625), '62.5¢');
    assert.equal(cents(null), '—');
    assert.equal(signed(1234.5), '+1,234.50');
    assert.equal(signed(-3.2), '−3.20');
    assert.equal(signed(0.004), '0.00');
    assert.equal(relativeTime('2026-01-04T05:00:00Z', now), 'in 3 d 5 h');
    assert.equal(relativeTime('2026-01-01T00:45:00Z', now), 'in 45 min');
    assert.equal(relativeTime('2025-12-31T22:30:00Z', now), '1 h 30 min ago');
    assert.equal(relativeTime(null, now), '—');
  });
});
