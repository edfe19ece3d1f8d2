import { isIP } from "node:net";
import { describe, expect, it } from "vitest";
import { clientAddress, normalizeAddress, rateLimitSubject } from "@/lib/http/client-address";

function forwardedFor(value: string | null): Headers {
  const headers = new Headers({ "user-agent": "test" });
  if (value !== null) headers.set("x-forwarded-for", value);
  return headers;
}

describe("clientAddress", () => {
  const CHAIN = "198.51.100.1, 192.0.2.5, 203.0.113.7";

  it.each([
    // header, hops, expected
    ["203.0.113.7", 1, "203.0.113.7"],
    [CHAIN, 1, "203.0.113.7"],
    [CHAIN, 2, "192.0.2.5"],
    [CHAIN, 3, "198.51.100.1"],
    ["198.51.100.1,192.0.2.5,203.0.113.7", 2, "192.0.2.5"],
    ["  198.51.100.1 ,   192.0.2.5 ,203.0.113.7  ", 1, "203.0.113.7"],
    ["  198.51.100.1 ,   192.0.2.5 ,203.0.113.7  ", 3, "198.51.100.1"],
    // empty entries do not count as hops
    ["198.51.100.1, , 203.0.113.7", 2, "198.51.100.1"],
    ["198.51.100.1,,203.0.113.7,", 1, "203.0.113.7"],
    [", 203.0.113.7", 1, "203.0.113.7"],
    // fewer entries than hops: the left-most one
    ["203.0.113.7", 2, "203.0.113.7"],
    ["203.0.113.7", 3, "203.0.113.7"],
    ["198.51.100.1, 203.0.113.7", 3, "198.51.100.1"],
    // ports and IPv4-mapped entries are normalized
    ["203.0.113.7:51234", 1, "203.0.113.7"],
    ["198.51.100.1, ::ffff:203.0.113.7", 1, "203.0.113.7"],
    ["[::ffff:203.0.113.7]:443", 1, "203.0.113.7"],
  ])("X-Forwarded-For %j with %i hop(s) -> %s", (header, hops, expected) => {
    expect(clientAddress(forwardedFor(header), hops)).toBe(expected);
  });

  it.each([
    ["hops 0 ignores the header", CHAIN, 0],
    ["hops 0 ignores a single entry", "203.0.113.7", 0],
    ["missing header, hops 1", null, 1],
    ["missing header, hops 2", null, 2],
    ["empty header", "", 1],
    ["only separators", " , ,", 1],
    ["garbage right-most entry", "198.51.100.1, not-an-ip", 1],
    ["garbage at the chosen hop", "unknown, 203.0.113.7", 2],
    ["a host name", "proxy.example.com", 1],
    ["an out-of-range IPv4", "256.1.1.1", 1],
    ["garbage left-most when the chain is short", "garbage, 203.0.113.7", 5],
  ])("%s -> null", (_label, header, hops) => {
    expect(clientAddress(forwardedFor(header), hops)).toBeNull();
  });

  it("an IPv6 entry comes back as a valid lowercase IPv6 address without brackets or port", () => {
    const address = clientAddress(forwardedFor("198.51.100.1, [2001:DB8::1]:443"), 1);
    expect(address).not.toBeNull();
    expect(isIP(address!)).toBe(6);
    expect(address).toBe(address!.toLowerCase());
    expect(address).toBe(normalizeAddress("2001:db8::1"));
  });
});

describe("normalizeAddress", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    [" 203.0.113.7 ", "203.0.113.7"],
    ["203.0.113.7:8080", "203.0.113.7"],
    ["10.0.0.1:1", "10.0.0.1"],
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["::FFFF:1.2.3.4", "1.2.3.4"],
    ["::ffff:0102:0304", "1.2.3.4"],
    ["::ffff:102:304", "1.2.3.4"],
    ["0:0:0:0:0:ffff:1.2.3.4", "1.2.3.4"],
    ["[::ffff:1.2.3.4]:443", "1.2.3.4"],
    ["::ffff:c0a8:0101", "192.168.1.1"],
  ])("%j -> %s", (raw, expected) => {
    expect(normalizeAddress(raw)).toBe(expected);
  });

  it.each([
    [""],
    ["unknown"],
    ["1.2.3"],
    ["1.2.3.4.5"],
    ["256.1.1.1"],
    ["1.2.3.4:abc"],
    ["example.com"],
    ["2001:db8::g"],
    ["2001:db8:::1"],
    ["[2001:db8::1"],
    ["::ffff:999.2.3.4"],
  ])("%j -> null", (raw) => {
    expect(normalizeAddress(raw)).toBeNull();
  });

  // Each group spells one IPv6 address several ways; all must normalize to one lowercase form.
  it.each([
    [
      [
        "2001:db8::1",
        "2001:DB8::1",
        "[2001:db8::1]",
        "[2001:db8::1]:443",
        "2001:0db8:0000:0000:0000:0000:0000:0001",
      ],
    ],
    [["fe80::1", "fe80::1%eth0", "FE80::1%ETH0", "[fe80::1%eth0]:8080"]],
    [["::1", "0:0:0:0:0:0:0:1", "[::1]:3000"]],
  ])("spellings of one IPv6 address normalize alike: %j", (spellings) => {
    const normalized = spellings.map((raw) => normalizeAddress(raw));
    const first = normalized[0]!;
    expect(first).not.toBeNull();
    expect(isIP(first)).toBe(6);
    expect(first).toBe(first.toLowerCase());
    expect(first).not.toMatch(/[[\]%]/);
    expect(new Set(normalized)).toEqual(new Set([first]));
  });

  it("keeps distinct IPv6 addresses distinct", () => {
    expect(normalizeAddress("2001:db8::1")).not.toBe(normalizeAddress("2001:db8::2"));
    expect(normalizeAddress("2001:db8::1:0")).not.toBe(normalizeAddress("2001:db8::1"));
  });
});

describe("rateLimitSubject", () => {
  it.each([
    ["null", null, "unknown"],
    ["IPv4", "203.0.113.7", "203.0.113.7"],
    ["another IPv4", "198.51.100.1", "198.51.100.1"],
  ])("%s -> %j", (_label, address, expected) => {
    expect(rateLimitSubject(address)).toBe(expected);
  });

  it.each([
    ["two hosts in one /64", "2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"],
    ["interface ids differ entirely", "2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2:1111:2222:3333:4444"],
    ["compressed and expanded forms", "2001:db8:0:0:1::", "2001:0db8:0000:0000:0001:0000:0000:0000"],
    ["lower and upper case", "2001:db8:abcd:12::5", "2001:DB8:ABCD:12::5"],
    ["zero-run placed differently", "2001:db8::1:0:0:1", "2001:db8:0:0:1::1"],
  ])("same subject: %s", (_label, a, b) => {
    expect(rateLimitSubject(a)).toBe(rateLimitSubject(b));
  });

  it.each([
    ["neighbouring /64s", "2001:db8:1:2::1", "2001:db8:1:3::1"],
    ["different /48s", "2001:db8:1:2::1", "2001:db8:2:2::1"],
    ["first group differs", "2001:db8::1", "2002:db8::1"],
    ["two IPv4 addresses", "203.0.113.7", "203.0.113.8"],
    ["IPv6 and unknown", "2001:db8::1", null],
  ])("different subjects: %s", (_label, a, b) => {
    expect(rateLimitSubject(a)).not.toBe(rateLimitSubject(b));
  });

  it("does not carry the interface id of an IPv6 address", () => {
    expect(rateLimitSubject("2001:db8:1:2:aaaa:bbbb:cccc:dddd")).not.toMatch(/aaaa|bbbb|cccc|dddd/i);
  });

  it.each([
    ["::ffff:203.0.113.7"],
    ["::FFFF:203.0.113.7"],
    ["::ffff:cb00:7107"],
    ["[::ffff:203.0.113.7]:443"],
  ])("an IPv4-mapped client (%s) is counted as its IPv4 address", (entry) => {
    expect(rateLimitSubject(clientAddress(forwardedFor(entry), 1))).toBe("203.0.113.7");
  });

  it("two IPv4-mapped clients are not lumped together", () => {
    const a = rateLimitSubject(clientAddress(forwardedFor("::ffff:203.0.113.7"), 1));
    const b = rateLimitSubject(clientAddress(forwardedFor("::ffff:198.51.100.1"), 1));
    expect(a).not.toBe(b);
  });
});

describe("client addresses: exact forms and each check on its own", () => {
  it.each([
    // IPv4-mapped only when all five groups before ffff are zero
    ["2001:db8::ffff:cb00:7107", "2001:db8:0:0:0:ffff:cb00:7107"],
    ["1::ffff:1.2.3.4", "1:0:0:0:0:ffff:102:304"],
    ["::1:ffff:1.2.3.4", "0:0:0:0:1:ffff:102:304"],
    ["::fffe:1.2.3.4", "0:0:0:0:0:fffe:102:304"],
    ["::ffff:255.255.255.255", "255.255.255.255"],
    ["::ffff:10.200.3.45", "10.200.3.45"],
    ["::1.2.3.4", "0:0:0:0:0:0:102:304"],
    ["2001:DB8::A:0", "2001:db8:0:0:0:0:a:0"],
    ["::", "0:0:0:0:0:0:0:0"],
    ["1::", "1:0:0:0:0:0:0:0"],
    // ports after an IPv4 address, octets of every width
    ["192.168.100.200:65535", "192.168.100.200"],
    ["1.22.133.4:8", "1.22.133.4"],
    ["10.20.30.40:443", "10.20.30.40"],
    // brackets: only around the whole address, the port optional
    ["[2001:db8::7]", "2001:db8:0:0:0:0:0:7"],
    ["[2001:db8::7]:8443", "2001:db8:0:0:0:0:0:7"],
    ["[203.0.113.7]", "203.0.113.7"],
    ["fe80::1%25eth0", "fe80:0:0:0:0:0:0:1"],
  ])("%j -> %s", (raw, expected) => {
    expect(normalizeAddress(raw)).toBe(expected);
  });

  it.each([
    ["x[2001:db8::7]"],
    ["[2001:db8::7]x"],
    ["[2001:db8::7]:"],
    ["[2001:db8::7]:44x"],
    ["[]"],
    ["[2001:db8::7]]"],
    ["203.0.113.7:"],
    ["203.0.113.7:80:80"],
    ["x203.0.113.7:80"],
    ["1.2.3.4.5:80"],
    ["1.2.3:80"],
    ["1234.2.3.4:80"],
    ["1.2.3.4:80x"],
    ["2001:db8::1:80"],
    ["::ffff:1.2.3.4:80"],
  ])("%j -> null", (raw) => {
    // (2001:db8::1:80 is itself an IPv6 address: no port is taken off it.)
    expect(normalizeAddress(raw)).toBe(raw === "2001:db8::1:80" ? "2001:db8:0:0:0:0:1:80" : null);
  });

  it.each([
    ["2001:db8:1:2::1", "2001:db8:1:2::/64"],
    ["2001:DB8:A:B:C:D:E:F", "2001:db8:a:b::/64"],
    ["::1", "0:0:0:0::/64"],
    ["[fe80::1%eth0]:8080", "fe80:0:0:0::/64"],
    // an IPv6 client with ffff in its 6th group is no IPv4 client
    ["2001:db8::ffff:cb00:7107", "2001:db8:0:0::/64"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["203.0.113.7:80", "203.0.113.7"],
    ["not an address", "unknown"],
    ["", "unknown"],
  ])("rateLimitSubject(%j) is %j", (raw, expected) => {
    expect(rateLimitSubject(raw)).toBe(expected);
  });

  it("an IPv6 client with ffff in its 6th group never shares an IPv4 client's bucket", () => {
    expect(rateLimitSubject("2001:db8::ffff:cb00:7107")).not.toBe(rateLimitSubject("203.0.113.7"));
  });

  it("a negative or fractional hop count finds no entry", () => {
    expect(clientAddress(forwardedFor("203.0.113.7"), -1)).toBeNull();
    expect(clientAddress(forwardedFor("198.51.100.1, 203.0.113.7"), 1.5)).toBeNull();
  });
});
