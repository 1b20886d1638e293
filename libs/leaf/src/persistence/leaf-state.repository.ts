import { createHash } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { WorkspaceAccessChangedSchema } from '@kw/contracts';
import { DataPrisma } from '@kw/platform-persistence';
import { SECRET_BOX, type SecretBox } from '@kw/platform-secret-box';
import { broadcast, TRANSPORT, type Transport } from '@kw/platform-transport';
import { LEAF_DB, type LeafDb } from './leaf-database.js';
import type { Jwks } from '../service/keys/jwks.js';

/** What the Leaf holds of its enrollment (the zone credential opened). */
export interface Enrollment {
  hostedZoneId: string;
  zoneCredential: string;
  /** SHA-256 (hex) of the enrollment token this enrollment came from. */
  enrollmentTokenHash: string;
  issuer: string;
  audience: string;
  jwksUri: string;
  jwks: Jwks | null;
  jwksFetchedAt: Date | null;
  /** The Cloud's last revocation list as JSON (read by parseRevocations), null before the first heartbeat. */
  revocations: unknown;
  revocationsFetchedAt: Date | null;
  /** When the Cloud last refused the zone credential (zone deleted or enrolled elsewhere); null while accepted. */
  refusedAt: Date | null;
}

export interface NewEnrollment {
  hostedZoneId: string;
  zoneCredential: string;
  issuer: string;
  audience: string;
  jwksUri: string;
}

export const hashEnrollmentToken = (token: string): string => createHash('sha256').update(token).digest('hex');

const STATE_ID = 1;

/**
 * The Leaf's persisted state: its enrollment (zone credential sealed with the SecretBox, the
 * Cloud's last JWKS) and the workspaces provisioned here. The Leaf is normally one process, the only
 * writer: the provisioned set is kept in memory and every change written through (a
 * workspace missing from it is looked up once more, in case another replica provisioned it).
 * The Leaf answers ResolveAccess from this state, so a change is announced like the Cloud's
 * workspaces component does (WorkspaceAccessChanged): data-plane gates drop cached answers.
 */
@Injectable()
export class LeafStateRepository {
  private enrollment: Enrollment | undefined;
  private readonly provisioned = new Map<string, string>();
  /** Provisioned workspaces moving out of the zone, served read-only. */
  private readonly frozen = new Set<string>();
  /** Workspaces another zone placed here (before the Leaf enrolled into its zone now): never served, purged. */
  private readonly orphaned = new Set<string>();

  constructor(
    @Inject(LEAF_DB) private readonly db: LeafDb,
    @Inject(SECRET_BOX) private readonly box: SecretBox,
    @Optional() @Inject(TRANSPORT) private readonly transport?: Transport,
  ) {}

  /** Reads the state from the database; undefined before the first enrollment. */
  async load(): Promise<Enrollment | undefined> {
    const row = await this.db.leafState.findUnique({ where: { id: STATE_ID } });
    await this.loadWorkspaces(row?.hostedZoneId);
    if (!row) return (this.enrollment = undefined);
    let zoneCredential: string;
    try {
      zoneCredential = this.box.open(row.zoneCredentialSealed);
    } catch {
      throw new Error(
        'The stored zone credential cannot be opened: SECRETS_ENCRYPTION_KEY (or DATA_DIR/secrets.key) ' +
          'changed since the Leaf enrolled. Restore the key, or enroll again with a new ENROLLMENT_TOKEN',
      );
    }
    this.enrollment = {
      hostedZoneId: row.hostedZoneId,
      zoneCredential,
      enrollmentTokenHash: row.enrollmentTokenHash,
      issuer: row.issuer,
      audience: row.audience,
      jwksUri: row.jwksUri,
      jwks: (row.jwks as Jwks | null) ?? null,
      jwksFetchedAt: row.jwksFetchedAt,
      revocations: row.revocations ?? null,
      revocationsFetchedAt: row.revocationsFetchedAt,
      refusedAt: row.refusedAt,
    };
    return this.enrollment;
  }

  /** The provisioned set: the zone's own workspaces are served, any other zone's are orphans. */
  private async loadWorkspaces(hostedZoneId: string | undefined): Promise<void> {
    const workspaces = await this.db.leafWorkspace.findMany({
      select: { workspaceId: true, name: true, frozenAt: true, hostedZoneId: true },
    });
    this.provisioned.clear();
    this.frozen.clear();
    this.orphaned.clear();
    for (const w of workspaces) {
      if (w.hostedZoneId !== hostedZoneId) {
        this.orphaned.add(w.workspaceId);
        continue;
      }
      this.provisioned.set(w.workspaceId, w.name);
      if (w.frozenAt) this.frozen.add(w.workspaceId);
    }
  }

  /** The current enrollment; undefined until enrolled. */
  current(): Enrollment | undefined {
    return this.enrollment;
  }

  /** Replaces the enrollment (a new one drops the previous zone's keys and revocations). */
  async saveEnrollment(enrolled: NewEnrollment, enrollmentToken: string): Promise<Enrollment> {
    const data = {
      hostedZoneId: enrolled.hostedZoneId,
      zoneCredentialSealed: this.box.seal(enrolled.zoneCredential),
      enrollmentTokenHash: hashEnrollmentToken(enrollmentToken),
      issuer: enrolled.issuer,
      audience: enrolled.audience,
      jwksUri: enrolled.jwksUri,
      jwks: DataPrisma.DbNull,
      jwksFetchedAt: null,
      revocations: DataPrisma.DbNull,
      revocationsFetchedAt: null,
      enrolledAt: new Date(),
      refusedAt: null,
    };
    await this.db.leafState.upsert({ where: { id: STATE_ID }, create: { id: STATE_ID, ...data }, update: data });
    this.enrollment = {
      ...enrolled,
      enrollmentTokenHash: data.enrollmentTokenHash,
      jwks: null,
      jwksFetchedAt: null,
      revocations: null,
      revocationsFetchedAt: null,
      refusedAt: null,
    };
    // Enrolled into another zone: the previous zone's workspaces are not this zone's (orphans).
    await this.loadWorkspaces(enrolled.hostedZoneId);
    this.announce({ all: true });
    return this.enrollment;
  }

  /**
   * The Cloud's issuer and keys URL as its heartbeat names them now (its PUBLIC_URL changed since
   * the enrollment): handoff tokens are checked against these from now on.
   */
  async adoptIssuer(issuer: string, jwksUri: string): Promise<void> {
    await this.db.leafState.update({ where: { id: STATE_ID }, data: { issuer, jwksUri } });
    if (this.enrollment) this.enrollment = { ...this.enrollment, issuer, jwksUri };
  }

  async saveJwks(jwks: Jwks, fetchedAt: Date): Promise<void> {
    await this.db.leafState.update({
      where: { id: STATE_ID },
      data: { jwks: jwks as object, jwksFetchedAt: fetchedAt },
    });
    if (this.enrollment) this.enrollment = { ...this.enrollment, jwks, jwksFetchedAt: fetchedAt };
  }

  /** The Cloud's current revocation list (JSON), so a restart while the Cloud is down still refuses revoked tokens. */
  async saveRevocations(revocations: object[], fetchedAt: Date): Promise<void> {
    await this.db.leafState.update({ where: { id: STATE_ID }, data: { revocations, revocationsFetchedAt: fetchedAt } });
    if (this.enrollment) this.enrollment = { ...this.enrollment, revocations, revocationsFetchedAt: fetchedAt };
  }

  /**
   * The Cloud refused the zone credential (`at`), or answered again (null). While refused the
   * Leaf serves nothing: its zone was deleted or another Leaf enrolled for it. Persisted, so a
   * restart does not serve for a moment before its first heartbeat.
   */
  async setRefused(at: Date | null): Promise<void> {
    if (!this.enrollment || (this.enrollment.refusedAt === null) === (at === null)) return;
    await this.db.leafState.update({ where: { id: STATE_ID }, data: { refusedAt: at } });
    this.enrollment = { ...this.enrollment, refusedAt: at };
    this.announce({ all: true });
  }

  /** Whether the Cloud refuses this Leaf's zone credential now. */
  refused(): boolean {
    return !!this.enrollment?.refusedAt;
  }

  /** Workspaces of another zone still in this Leaf's database, to purge. */
  orphans(): string[] {
    return [...this.orphaned];
  }

  /** An orphan's data is purged: its record goes. Idempotent. */
  async forgetOrphan(workspaceId: string): Promise<void> {
    await this.db.leafWorkspace.deleteMany({ where: { workspaceId } });
    this.orphaned.delete(workspaceId);
  }

  /** Known provisioned here (this process's view; see `provisionedNow`). */
  isProvisioned(workspaceId: string): boolean {
    return this.provisioned.has(workspaceId);
  }

  /** Provisioned here, asking the database when this process has not seen it (another replica provisioned it). */
  async provisionedNow(workspaceId: string): Promise<boolean> {
    if (this.provisioned.has(workspaceId)) return true;
    const row = await this.db.leafWorkspace.findFirst({
      where: { workspaceId, hostedZoneId: this.enrollment?.hostedZoneId ?? '' },
      select: { name: true },
    });
    if (row) {
      this.provisioned.set(workspaceId, row.name);
      this.announce({ workspaceIds: [workspaceId] });
    }
    return !!row;
  }

  /** Provisioned workspaces (id and name). */
  workspaces(): Array<{ id: string; name: string }> {
    return [...this.provisioned].map(([id, name]) => ({ id, name }));
  }

  /**
   * Provisions a placed workspace: the data plane's tables are shared by every workspace
   * (keyed by workspace id), so the record is what makes this Leaf serve it. Idempotent.
   */
  async provision(workspaceId: string, name: string): Promise<void> {
    const hostedZoneId = this.enrollment?.hostedZoneId ?? null;
    await this.db.leafWorkspace.upsert({
      where: { workspaceId },
      create: { workspaceId, name, hostedZoneId },
      update: { name, hostedZoneId },
    });
    this.orphaned.delete(workspaceId);
    this.provisioned.set(workspaceId, name);
    this.announce({ workspaceIds: [workspaceId] });
  }

  isFrozen(workspaceId: string): boolean {
    return this.frozen.has(workspaceId);
  }

  /** Workspaces served read-only now. */
  frozenWorkspaces(): string[] {
    return [...this.frozen];
  }

  /**
   * The Cloud's current list of workspaces moving out of the zone replaces the Leaf's own
   * (persisted, so a restart keeps serving them read-only). Only provisioned ones count.
   */
  async replaceFrozen(workspaceIds: string[]): Promise<void> {
    const next = new Set(workspaceIds.filter((id) => this.provisioned.has(id)));
    const changed = [...next, ...this.frozen].filter((id) => next.has(id) !== this.frozen.has(id));
    if (changed.length === 0) return;
    const now = new Date();
    await this.db.$transaction(
      changed.map((workspaceId) =>
        this.db.leafWorkspace.update({
          where: { workspaceId },
          data: { frozenAt: next.has(workspaceId) ? now : null },
        }),
      ),
    );
    this.frozen.clear();
    for (const id of next) this.frozen.add(id);
    this.announce({ workspaceIds: changed });
  }

  /** The workspace is no longer served here (its data was purged): forgets it. Idempotent. */
  async deprovision(workspaceId: string): Promise<void> {
    await this.db.leafWorkspace.deleteMany({ where: { workspaceId } });
    this.provisioned.delete(workspaceId);
    this.frozen.delete(workspaceId);
    this.announce({ workspaceIds: [workspaceId] });
  }

  private announce(changed: { workspaceIds?: string[]; all?: boolean }): void {
    if (this.transport) broadcast(this.transport, WorkspaceAccessChangedSchema, changed);
  }

  async markReadyReported(workspaceId: string): Promise<void> {
    await this.db.leafWorkspace.update({ where: { workspaceId }, data: { readyReportedAt: new Date() } });
  }
}
