// Where a browser-binding cookie lives. On https it is a `__Host-` cookie: the browser takes it only
// from this exact origin, Secure, for the whole host, so a sibling subdomain cannot plant one of its
// own (its Domain attribute would be refused) to stage a login CSRF or fix a flow's binding. Plain
// http (development, tests) cannot carry the prefix; there the cookie keeps its own name and is scoped
// to the path of the pages that read it.

export interface OriginCookie {
  readonly name: string;
  readonly path: string;
  readonly secure: boolean;
}

/** `baseName`'s cookie for pages at `path` under `publicUrl` (e.g. AUTH_URL). */
export function originCookie(baseName: string, publicUrl: string, path: string): OriginCookie {
  const url = new URL(publicUrl);
  if (url.protocol === 'https:') return { name: `__Host-${baseName}`, path: '/', secure: true };
  return { name: baseName, path: `${url.pathname.replace(/\/+$/, '')}${path}`, secure: false };
}
