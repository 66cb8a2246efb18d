import dns from 'node:dns';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkTarget } from './safe-client.js';
import { refusal } from '../../test/helpers/rejections.js';

const STRICT = { allowPrivate: false };
const PRIVATE_OK = { allowPrivate: true };

afterEach(() => {
  vi.restoreAllMocks();
});

describe('checkTarget', () => {
  it('refuses what is not an absolute URL', async () => {
    await refusal(checkTarget('not a url', STRICT), 'invalid-url');
    await refusal(checkTarget('/relative/path', PRIVATE_OK), 'invalid-url');
  });

  it('allows only https, and http only when private targets are allowed', async () => {
    const error = await refusal(checkTarget('http://93.184.216.34/hook', STRICT), 'scheme');
    expect(error.message).toMatch(/https:\/\//);
    await refusal(checkTarget('ftp://93.184.216.34/hook', STRICT), 'scheme');
    await refusal(checkTarget('ftp://127.0.0.1/hook', PRIVATE_OK), 'scheme');
    await refusal(checkTarget('file:///etc/passwd', PRIVATE_OK), 'scheme');
    await expect(checkTarget('https://93.184.216.34/hook', STRICT)).resolves.toBeInstanceOf(URL);
    await expect(checkTarget('http://127.0.0.1:9/hook', PRIVATE_OK)).resolves.toBeInstanceOf(URL);
  });

  it('refuses credentials in the URL', async () => {
    await refusal(checkTarget('https://user:secret@93.184.216.34/', STRICT), 'credentials');
    await refusal(checkTarget('https://user@93.184.216.34/', STRICT), 'credentials');
    await refusal(checkTarget('http://user:secret@127.0.0.1/', PRIVATE_OK), 'credentials');
  });

  it.each([
    ['loopback', 'https://127.0.0.1/'],
    ['loopback, elsewhere in 127/8', 'https://127.1.2.3/'],
    ['loopback, written as one decimal number', 'https://2130706433/'],
    ['loopback, written in hex', 'https://0x7f000001/'],
    ['RFC 1918 10/8', 'https://10.1.2.3/'],
    ['RFC 1918 172.16/12', 'https://172.20.0.1/'],
    ['RFC 1918 192.168/16', 'https://192.168.1.1/'],
    ['cloud metadata (link-local)', 'https://169.254.169.254/latest/meta-data/'],
    ['carrier-grade NAT', 'https://100.64.0.1/'],
    ['unspecified', 'https://0.0.0.0/'],
    ['multicast', 'https://224.0.0.1/'],
    ['broadcast', 'https://255.255.255.255/'],
    ['reserved (TEST-NET-1)', 'https://192.0.2.1/'],
    ['IPv6 loopback', 'https://[::1]/'],
    ['IPv6 unspecified', 'https://[::]/'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/'],
    ['IPv4-mapped metadata', 'https://[::ffff:169.254.169.254]/'],
    ['IPv4-compatible loopback', 'https://[::127.0.0.1]/'],
    ['NAT64 of loopback', 'https://[64:ff9b::7f00:1]/'],
    ['IPv6 unique-local', 'https://[fd00::1]/'],
    ['IPv6 link-local', 'https://[fe80::1]/'],
    ['IPv6 multicast', 'https://[ff02::1]/'],
  ])('refuses an IP literal that is %s', async (_what, url) => {
    const error = await refusal(checkTarget(url, STRICT), 'private-address');
    expect(error.message).toMatch(/public addresses/);
  });

  it('passes public IP literals without needing a connection', async () => {
    expect((await checkTarget('https://93.184.216.34/hook', STRICT)).hostname).toBe('93.184.216.34');
    expect((await checkTarget('https://[2606:2800:220:1:248:1893:25c8:1946]/', STRICT)).hostname).toBe(
      '[2606:2800:220:1:248:1893:25c8:1946]',
    );
    expect((await checkTarget('https://[::ffff:93.184.216.34]/', STRICT)).href).toMatch(/^https:\/\/\[/);
  });

  it.each([
    'https://localhost/hook',
    'https://localhost./hook',
    'https://LOCALHOST./hook',
    'https://foo.localhost/hook',
    'https://foo.localhost./hook',
  ])('refuses %s by its name, before any lookup', async (url) => {
    const lookup = vi.spyOn(dns, 'lookup');
    const error = await refusal(checkTarget(url, STRICT), 'private-address');
    expect(error.message).toMatch(/localhost\.? names this machine/);
    expect(lookup).not.toHaveBeenCalled();
  });

  it.each(['https://127.0.0.1./hook', 'https://10.1.2.3./hook', 'https://0x7f.1./hook'])(
    'refuses the IP literal %s (a trailing dot is the same address)',
    async (url) => {
      await refusal(checkTarget(url, STRICT), 'private-address');
    },
  );

  it('refuses a name with a trailing dot when either form of it resolves to a private address', async () => {
    const lookup = vi
      .spyOn(dns, 'lookup')
      .mockImplementation(((host: string, _options: unknown, callback: Function) =>
        host === 'internal.example'
          ? callback(null, [{ address: '10.0.0.5', family: 4 }])
          : callback(Object.assign(new Error('no'), { code: 'ENOTFOUND' }), [])) as never);
    const error = await refusal(checkTarget('https://internal.example./hook', STRICT), 'private-address');
    expect(error.message).toMatch(/internal\.example\. resolves to 10\.0\.0\.5/);
    expect(lookup.mock.calls.map((c) => c[0])).toEqual(['internal.example.', 'internal.example']);
  });

  it('refuses a name that resolves to loopback', async () => {
    vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _options: unknown, callback: Function) =>
      callback(null, [{ address: '127.0.0.1', family: 4 }])) as never);
    const error = await refusal(checkTarget('https://loopy.example/hook', STRICT), 'private-address');
    expect(error.message).toMatch(/loopy\.example resolves to 127\.0\.0\.1/);
  });

  it('refuses a name when any one of its addresses is private', async () => {
    vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _options: unknown, callback: Function) =>
      callback(null, [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.5', family: 4 },
      ])) as never);
    await refusal(checkTarget('https://mixed.example/', STRICT), 'private-address');
    vi.restoreAllMocks();
    vi.spyOn(dns, 'lookup').mockImplementation(((_host: string, _options: unknown, callback: Function) =>
      callback(null, [{ address: '93.184.216.34', family: 4 }])) as never);
    await expect(checkTarget('https://public.example/', STRICT)).resolves.toBeInstanceOf(URL);
  });

  it('takes a name that does not resolve now (its record may come later; every address is checked at connect time)', async () => {
    const lookup = vi.spyOn(dns, 'lookup');
    await expect(checkTarget('https://no-such-host.invalid/', STRICT)).resolves.toBeInstanceOf(URL);
    expect(lookup).toHaveBeenCalled();
    vi.restoreAllMocks();
  });

  it('allows private addresses when the operator allows them', async () => {
    await expect(checkTarget('http://localhost:7420/hook', PRIVATE_OK)).resolves.toBeInstanceOf(URL);
    await expect(checkTarget('http://localhost.:7420/hook', PRIVATE_OK)).resolves.toBeInstanceOf(URL);
    await expect(checkTarget('https://10.1.2.3/', PRIVATE_OK)).resolves.toBeInstanceOf(URL);
  });
});
