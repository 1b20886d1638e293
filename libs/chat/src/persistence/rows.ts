/** A vault secret as stored: metadata plus its sealed value (never leaves the service). */
export interface SecretRow {
  id: string;
  userId: string;
  name: string;
  type: string;
  provider: string;
  description: string;
  ciphertext: string;
  wrappedKey: string;
  keyVersion: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface SecretAccessRow {
  id: string;
  secretId: string;
  secretName: string;
  purpose: string;
  detail: string;
  at: Date;
}

export interface SealedValue {
  ciphertext: string;
  wrappedKey: string;
  keyVersion: string;
}
