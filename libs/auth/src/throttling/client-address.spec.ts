import { clientAddressKey } from './client-address';

describe('clientAddressKey', () => {
  it('should keep IPv4 addresses and unwrap IPv4-mapped ones', () => {
    expect(clientAddressKey('10.1.2.3')).toBe('10.1.2.3');
    expect(clientAddressKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
  });

  it('should group IPv6 addresses by /64', () => {
    expect(clientAddressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:0db8:0001:0002::ffff')).toBe('2001:db8:1:2::/64');
    expect(clientAddressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64');
    expect(clientAddressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('should pass anything else through', () => {
    expect(clientAddressKey('unknown')).toBe('unknown');
  });
});
