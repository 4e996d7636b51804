import { describe, expect, it } from "vitest";
import { isPublicAddress } from "./is-public-address.js";

describe("isPublicAddress", () => {
  it("accepts public IPv4 and IPv6 addresses", () => {
    for (const address of ["93.184.216.34", "8.8.8.8", "1.1.1.1", "100.63.255.255", "100.128.0.0", "172.32.0.1", "2606:4700:4700::1111", "2a00:1450:4009:81f::200e", "[2001:4860:4860::8888]"]) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it("refuses loopback, private, CGNAT, link-local, metadata, reserved and multicast IPv4", () => {
    for (const address of ["127.0.0.1", "127.255.255.254", "0.0.0.0", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1", "100.127.255.255", "169.254.169.254", "192.0.0.170", "198.18.0.1", "224.0.0.1", "240.0.0.1", "255.255.255.255"]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });

  it("refuses non-public IPv6, including cloud metadata and IPv4 addresses hidden inside IPv6", () => {
    for (const address of [
      "::1", "::", "[::1]", "fe80::1", "fe80::1%eth0", "fc00::1", "fd00:ec2::254", "ff02::1", "2001:db8::1",
      "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:169.254.169.254", "::ffff:a00:1", "0:0:0:0:0:ffff:c0a8:0101",
      "64:ff9b::10.0.0.1", "2002:7f00:1::1", "::127.0.0.1",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    // An embedded public IPv4 address stays public in 6to4.
    expect(isPublicAddress("2002:808:808::1")).toBe(true);
    expect(isPublicAddress("64:ff9b::8.8.8.8")).toBe(true);
  });

  it("refuses local-use NAT64 (64:ff9b:1::/48), and IPv4-mapped and IPv4-translated addresses whatever they carry (issue 24)", () => {
    for (const address of ["64:ff9b:1::1", "64:ff9b:1::8.8.8.8", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", "::ffff:8.8.8.8", "::ffff:0808:0808", "::ffff:0:8.8.8.8", "::ffff:0:808:808"]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    expect(isPublicAddress("64:ff9b:2::1")).toBe(true);
  });

  it("refuses what is not an address at all", () => {
    for (const text of ["", "localhost", "example.com", "1.2.3", "999.1.1.1", "::gg"]) expect(isPublicAddress(text), text).toBe(false);
  });
});
