// One DNS label (RFC 1123): a-z, 0-9, inner hyphens, at most 63 characters. Template sites' subdomains are such
// labels, and the local pages server and host check refuse any other name before touching the file system.
export const dnsLabel = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
