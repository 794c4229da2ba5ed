import assert from 'node:assert/strict';
import { html, when } from '../../api/console/html.js';
import { nextRunAt } from '../../shared/domains/schedules/schedule-admin.js';

describe('operator console template layer #unit', () => {
  it('when data is interpolated, then it is escaped; nested templates and arrays are not escaped twice', () => {
    const hostile = `<script>alert("x")</script>&'`;
    const out = html`<p title="${hostile}">
      ${hostile}${[html`<b>${'<i>'}</b>`, 1, null, false, undefined]}
    </p>`;
    // Prettier lays the template out on several lines: compare without that layout.
    assert.equal(
      out.text.replace(/\s*\n\s*/g, ''),
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;<b>&lt;i&gt;</b>1</p>',
    );
  });

  it('when a time is shown, then it reads as UTC in a <time> element, and nothing as a dash', () => {
    assert.equal(
      when('2026-11-25T03:04:05.123Z').text,
      '<time datetime="2026-11-25T03:04:05.123Z">2026-11-25 03:04:05 UTC</time>',
    );
    assert.match(when(null).text, /—/);
  });

  it('when the next run is computed, then five- and six-field cron expressions are read in UTC', () => {
    const from = new Date('2026-11-25T03:04:05.000Z');
    assert.equal(nextRunAt('*/15 * * * *', from).toISOString(), '2026-11-25T03:15:00.000Z');
    assert.equal(nextRunAt('*/5 * * * * *', from).toISOString(), '2026-11-25T03:04:10.000Z');
    assert.equal(nextRunAt('* * * * *', from).toISOString(), '2026-11-25T03:05:00.000Z');
  });
});
