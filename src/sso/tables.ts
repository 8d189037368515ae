// Row types of the single sign-on tables (migration 0011). Instants are epoch milliseconds.

export interface SsoProvidersTable {
  id: string;
  organisation_id: string;
  /** Exactly as the provider's discovery document spells it (pinned: ID tokens must carry it). */
  issuer: string;
  client_id: string;
  /** The client secret sealed with SECRETS_KEY (see platform/sealed-secrets.ts); never shown again. */
  client_secret_encrypted: string;
  created_at: number;
  updated_at: number;
}

export interface SsoDomainsTable {
  /** Lower case; the primary key makes a domain belong to one provider across all organisations. */
  domain: string;
  provider_id: string;
}

export interface SsoSettingsTable {
  organisation_id: string;
  /** 1: API Users of the organisation sign in only through its providers (no secret form). */
  enforce_sso: number;
  updated_at: number;
}

export interface SsoLinksTable {
  /** A user stays linked to one (issuer, sub). */
  user_id: string;
  provider_id: string;
  client_id: string;
  issuer: string;
  subject: string;
  created_at: number;
}

export interface SsoPendingTable {
  /** SHA-256 of the `state` sent to the provider: single use, short-lived. */
  state_hash: string;
  provider_id: string;
  client_id: string;
  /** The client's authorization request (JSON of its parameters), re-checked on return. */
  request: string;
  /** Nonce and PKCE verifier, sealed with SECRETS_KEY. */
  secrets_encrypted: string;
  /** SHA-256 of the cookie that binds the flow to the browser that started it. */
  browser_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface SsoTables {
  sso_providers: SsoProvidersTable;
  sso_domains: SsoDomainsTable;
  sso_settings: SsoSettingsTable;
  sso_links: SsoLinksTable;
  sso_pending: SsoPendingTable;
}
