import test from 'ava';
import { classifyAddress, isAllowedAddress, type AddressClass } from '../../src/net/address-class.ts';

const cases: Record<AddressClass, string[]> = {
  public: [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:81b::200e',
    '2600::',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:200::1',
  ],
  metadata: [
    '169.254.169.254',
    '169.254.170.2',
    '100.100.100.200',
    'fd00:ec2::254',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '64:ff9b::169.254.169.254',
  ],
  unspecified: ['0.0.0.0', '0.1.2.3', '::', '0:0:0:0:0:0:0:0', '::ffff:0.0.0.0'],
  loopback: [
    '127.0.0.1',
    '127.255.255.254',
    '127.1.2.3',
    '::1',
    '0:0:0:0:0:0:0:1',
    '[::1]',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::127.0.0.1',
    '::ffff:0:127.0.0.1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
  ],
  private: [
    '10.0.0.1',
    '10.255.255.255',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '192.168.255.255',
    '::ffff:10.1.2.3',
    '::ffff:192.168.1.1',
    '2002:c0a8:101::1',
  ],
  cgnat: ['100.64.0.1', '100.127.255.255', '::ffff:100.64.0.1'],
  'link-local': ['169.254.0.1', '169.254.255.255', 'fe80::1', 'fe80::1%eth0', 'febf:ffff::1', '::ffff:169.254.1.1'],
  'unique-local': ['fc00::1', 'fd12:3456:789a::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1', 'ff05::2', '::ffff:224.0.0.1'],
  documentation: ['192.0.2.1', '198.51.100.7', '203.0.113.9', '2001:db8::1', '2001:0db8:85a3::8a2e:370:7334', '3fff::1'],
  reserved: [
    '240.0.0.1',
    '255.255.255.255',
    '192.0.0.8',
    '192.88.99.1',
    '198.18.0.1',
    '198.19.255.255',
    'fec0::1',
    '100::1',
    '64:ff9b:1::1',
    '2001::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:10::1',
    '1000::1',
    '4000::1',
  ],
  invalid: ['', 'localhost', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4x', '::g', '1:2:3:4:5:6:7:8:9', 'example.org', '[::1', '1.2.3.-4'],
};

for (const [cls, addresses] of Object.entries(cases)) {
  test(`${cls} addresses are classified as ${cls}`, (t) => {
    for (const address of addresses) t.is(classifyAddress(address), cls as AddressClass, address);
  });
}

test('only public addresses are allowed by default', (t) => {
  for (const [cls, addresses] of Object.entries(cases)) {
    for (const address of addresses) t.is(isAllowedAddress(address), cls === 'public', address);
  }
});

test('allowing private networks lets in loopback, private and link-local, but never metadata addresses', (t) => {
  const opts = { allowPrivateNetworks: true };
  for (const address of ['127.0.0.1', '::1', '10.0.0.1', '192.168.1.1', '172.16.0.1', '100.64.0.1', 'fe80::1', 'fd00::1', '8.8.8.8']) {
    t.true(isAllowedAddress(address, opts), address);
  }
  for (const address of ['169.254.169.254', '::ffff:169.254.169.254', 'fd00:ec2::254', '100.100.100.200', 'not-an-ip']) {
    t.false(isAllowedAddress(address, opts), address);
  }
});

test('range edges: the first and last address of a blocked range are blocked, their neighbours are not', (t) => {
  const edges: [string, AddressClass][] = [
    ['9.255.255.255', 'public'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['11.0.0.0', 'public'],
    ['100.63.255.255', 'public'],
    ['100.64.0.0', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['100.128.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'public'],
    ['223.255.255.255', 'public'],
    ['224.0.0.0', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['fbff:ffff::1', 'reserved'],
    ['fc00::', 'unique-local'],
    ['fdff::1', 'unique-local'],
    ['fe00::1', 'reserved'],
    ['fe7f::1', 'reserved'],
    ['fe80::', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::', 'reserved'],
    ['1fff:ffff::1', 'reserved'],
    ['2000::', 'public'],
    ['3ffe::1', 'public'],
    ['4000::', 'reserved'],
  ];
  for (const [address, cls] of edges) t.is(classifyAddress(address), cls, address);
});

test('IPv4 forms that URL parsing turns into dotted quads are classified after that parsing', (t) => {
  // The WHATWG URL parser normalises decimal, octal and hex hosts; safe-fetch classifies its output.
  for (const host of ['http://2130706433/', 'http://0x7f000001/', 'http://0177.0.0.1/', 'http://127.1/']) {
    const hostname = new URL(host).hostname;
    t.is(hostname, '127.0.0.1', host);
    t.is(classifyAddress(hostname), 'loopback', host);
  }
  t.is(new URL('http://[::ffff:127.0.0.1]/').hostname, '[::ffff:7f00:1]');
  t.is(classifyAddress(new URL('http://[::ffff:127.0.0.1]/').hostname), 'loopback');
});
