// The console's navigation, as data: a feature that adds a section (webhook endpoints of a company,
// SSO providers of the organisation) adds one entry here and its routes, nothing else.

export interface NavSection {
  /** Link text, also the heading of the section's page. */
  label: string;
  /** Path below {auth_url}/console. */
  path: string;
  /** Shown only to admins (a section whose every page changes something). */
  adminOnly?: boolean;
}

/** Sections of the organisation, in the header of every signed-in page. */
export const ORGANISATION_SECTIONS: NavSection[] = [
  { label: 'Companies', path: '' },
  { label: 'Single sign-on', path: '/sso' },
  { label: 'Audit log', path: '/audit' },
  { label: 'Console users', path: '/console-users' },
];

/** Sections of one company, as tabs of its page; `path` follows /companies/{companyId}. */
export const COMPANY_SECTIONS: NavSection[] = [
  { label: 'API Clients', path: '' },
  { label: 'Webhooks', path: '/webhooks' },
];
