// Subdomains of template sites: one DNS label (the kernel's dnsLabel), the template's name made readable plus 10
// random characters; templateSites' conditional put keeps each unique.
import { randomBytes } from 'node:crypto';

const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function newSubdomain(name: string): string {
  const slug = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  const suffix = [...randomBytes(10)].map((byte) => alphabet[byte % alphabet.length]).join('');
  return slug ? `${slug}-${suffix}` : `site-${suffix}`;
}
