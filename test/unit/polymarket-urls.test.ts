import assert from 'node:assert/strict';
import {
  MAX_SLUG_LENGTH,
  parsePolymarketUrl,
  polymarketEventUrl,
  polymarketMarketUrl,
} from '../../shared/domains/venues/polymarket/polymarket-urls.js';

const refused = (raw: string): string => {
  const r = parsePolymarketUrl(raw);
  assert.equal(r.kind, 'error', `expected ${JSON.stringify(raw)} to be refused, got ${JSON.stringify(r)}`);
  return r.kind === 'error' ? r.reason : '';
};

describe('polymarket URLs #unit', () => {
  describe('accepted shapes', () => {
    it('when the URL is /event/{slug}, then it is an event', () => {
      assert.deepEqual(parsePolymarketUrl('https://polymarket.com/event/us-recession-in-2027'), {
        kind: 'event',
        eventSlug: 'us-recession-in-2027',
      });
    });

    it('when the URL is /event/{event}/{market}, then it is that market of that event', () => {
      assert.deepEqual(
        parsePolymarketUrl('https://polymarket.com/event/fed-decision-in-december/no-change-in-fed-rates'),
        { kind: 'market', eventSlug: 'fed-decision-in-december', marketSlug: 'no-change-in-fed-rates' },
      );
    });

    it('when the URL is /market/{slug}, then it is a market without an event', () => {
      assert.deepEqual(parsePolymarketUrl('https://polymarket.com/market/btc-updown-15m-1767200400'), {
        kind: 'market',
        eventSlug: null,
        marketSlug: 'btc-updown-15m-1767200400',
      });
    });

    it('when the host is www.polymarket.com or upper case, then it is accepted', () => {
      for (const raw of ['https://www.polymarket.com/event/abc', 'https://WWW.PolyMarket.COM/event/abc']) {
        assert.deepEqual(parsePolymarketUrl(raw), { kind: 'event', eventSlug: 'abc' }, raw);
      }
    });

    it('when the URL is plain http, then it is accepted', () => {
      assert.deepEqual(parsePolymarketUrl('http://polymarket.com/event/abc'), {
        kind: 'event',
        eventSlug: 'abc',
      });
    });

    it('when the URL has a query string or fragment, then they are ignored', () => {
      assert.deepEqual(parsePolymarketUrl('https://polymarket.com/event/abc?tid=1758818660485'), {
        kind: 'event',
        eventSlug: 'abc',
      });
      assert.deepEqual(parsePolymarketUrl('https://polymarket.com/event/abc/def?tid=1#comments'), {
        kind: 'market',
        eventSlug: 'abc',
        marketSlug: 'def',
      });
    });

    it('when the URL has trailing slashes or surrounding spaces, then they are ignored', () => {
      assert.deepEqual(parsePolymarketUrl('  https://polymarket.com/event/abc/  '), {
        kind: 'event',
        eventSlug: 'abc',
      });
      assert.deepEqual(parsePolymarketUrl('https://polymarket.com/market/abc//'), {
        kind: 'market',
        eventSlug: null,
        marketSlug: 'abc',
      });
    });

    it('when the path starts with a locale segment, then it is skipped', () => {
      assert.deepEqual(parsePolymarketUrl('https://polymarket.com/es/event/abc'), {
        kind: 'event',
        eventSlug: 'abc',
      });
      assert.deepEqual(parsePolymarketUrl('https://polymarket.com/zh/event/abc/def'), {
        kind: 'market',
        eventSlug: 'abc',
        marketSlug: 'def',
      });
      assert.deepEqual(parsePolymarketUrl('https://polymarket.com/pt-BR/market/abc'), {
        kind: 'market',
        eventSlug: null,
        marketSlug: 'abc',
      });
    });

    it('when the slug has upper-case letters, then it is lower-cased', () => {
      assert.deepEqual(parsePolymarketUrl('https://polymarket.com/Event/US-Recession-In-2027'), {
        kind: 'event',
        eventSlug: 'us-recession-in-2027',
      });
    });
  });

  describe('refusals', () => {
    it('when the host only looks like polymarket.com, then it is refused', () => {
      for (const raw of [
        'https://polymarket.com.evil.test/event/abc',
        'https://evil.test/polymarket.com/event/abc',
        'https://evilpolymarket.com/event/abc',
        'https://polymarket.co/event/abc',
        'https://clob.polymarket.com/event/abc',
        'https://polymarket.com./event/abc',
      ]) {
        assert.match(refused(raw), /polymarket\.com/, raw);
      }
    });

    it('when the URL carries userinfo, then it is refused (no user@host tricks)', () => {
      for (const raw of [
        'https://polymarket.com@evil.test/event/abc',
        'https://user:pass@polymarket.com/event/abc',
        'https://evil.test@polymarket.com/event/abc',
      ]) {
        assert.match(refused(raw), /user name or password|credentials/, raw);
      }
    });

    it('when the host is an IP address, then it is refused', () => {
      refused('http://127.0.0.1/event/abc');
      refused('http://[::1]/event/abc');
      refused('http://2130706433/event/abc');
    });

    it('when the URL names a port, even the default one, then it is refused', () => {
      assert.match(refused('https://polymarket.com:443/event/abc'), /port/);
      assert.match(refused('https://polymarket.com:8080/event/abc'), /port/);
    });

    it('when the scheme is not http(s) or missing, then it is refused', () => {
      for (const raw of [
        'file:///etc/passwd',
        'javascript:alert(1)//polymarket.com/event/abc',
        'ftp://polymarket.com/event/abc',
        'polymarket.com/event/abc',
        '//polymarket.com/event/abc',
        'data:text/html,https://polymarket.com/event/abc',
      ]) {
        assert.match(refused(raw), /http\(s\)/, raw);
      }
    });

    it('when the input is empty, blank or contains whitespace or backslashes, then it is refused', () => {
      refused('');
      refused('   ');
      refused('https://polymarket.com/event/a b');
      refused('https://polymarket.com\\@evil.test/event/abc');
    });

    it('when the path is not an event or market page, then it is refused', () => {
      for (const raw of [
        'https://polymarket.com/',
        'https://polymarket.com/sports/nba/games',
        'https://polymarket.com/profile/0xabc',
        'https://polymarket.com/es',
        'https://polymarket.com/event/',
        'https://polymarket.com/market',
      ]) {
        refused(raw);
      }
    });

    it('when there are more path segments than a page has, then it is refused', () => {
      assert.match(refused('https://polymarket.com/event/a/b/c'), /more path segments/);
      assert.match(refused('https://polymarket.com/market/a/b'), /more path segments/);
      assert.match(refused('https://polymarket.com/es/fr/event/a'), /not a Polymarket event or market page/);
    });

    it('when a slug has characters outside [a-z0-9-], then it is refused', () => {
      for (const raw of [
        'https://polymarket.com/event/abc_def',
        'https://polymarket.com/event/abc%2F..%2Fdef',
        'https://polymarket.com/event/..',
        'https://polymarket.com/event/abc/d.ef',
        'https://polymarket.com/event/caf%C3%A9',
      ]) {
        assert.match(refused(raw), /slug/, raw);
      }
    });

    it('when a slug is longer than the cap, then it is refused', () => {
      assert.match(refused(`https://polymarket.com/event/${'a'.repeat(MAX_SLUG_LENGTH + 1)}`), /longer/);
      assert.equal(
        parsePolymarketUrl(`https://polymarket.com/event/${'a'.repeat(MAX_SLUG_LENGTH)}`).kind,
        'event',
      );
    });

    it('when refused, then the reason names a valid URL shape to use', () => {
      assert.match(refused('https://evil.test/event/abc'), /https:\/\/polymarket\.com\/event\/<event-slug>/);
    });
  });

  describe('canonical URLs', () => {
    it('when a market has an event, then its URL is under the event; otherwise /market/', () => {
      assert.equal(polymarketEventUrl('abc'), 'https://polymarket.com/event/abc');
      assert.equal(polymarketMarketUrl('abc', 'def'), 'https://polymarket.com/event/abc/def');
      assert.equal(polymarketMarketUrl('abc', 'abc'), 'https://polymarket.com/event/abc');
      assert.equal(polymarketMarketUrl(null, 'def'), 'https://polymarket.com/market/def');
    });

    it('when a canonical URL is parsed back, then it yields the same slugs', () => {
      assert.deepEqual(parsePolymarketUrl(polymarketMarketUrl('abc', 'def')), {
        kind: 'market',
        eventSlug: 'abc',
        marketSlug: 'def',
      });
    });
  });
});
