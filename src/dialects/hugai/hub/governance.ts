import { ParlanceError, type Json, type StoredEvent } from '../../../core/index.js'
import { hugai } from '../codec.js'
import type { Session, SessionManager } from '../../../session/index.js'
import type { Audit } from './audit.js'
import type { EarlyDecision, HubLink } from './link.js'
import type { GovernanceLevel, Params, Peer } from './peer.js'

type Requested = Extract<StoredEvent, { type: 'approval.requested' }>
type Resolved = Extract<StoredEvent, { type: 'approval.resolved' }>

/** The task an approval belongs to. */
export interface TaskRef {
  taskId: string
  requester: Peer
  level: GovernanceLevel
}

interface Checkpoint extends TaskRef {
  agent: string
  /** Its name: the tool the agent asks to run (a decision may name it instead of the id). */
  name: string
  /** The principal whose session raised it. */
  owner: string
  notified: Set<Peer>
}

/** Early decisions kept at most (the oldest goes first). */
const MAX_EARLY = 1_000

/**
 * Human checkpoints. A task's governance level is its requester's (`initialize.governanceLevel`):
 * `autonomous` → the hub approves itself (audited); `supervised` → a `checkpoint` event goes to the requester
 * and to every approver connection of the same principal, and the requester or an approver decides;
 * `strict` → as supervised, but only an approver connection may decide.
 *
 * A decision may come first (the seed's own example decides `code-review` unasked): it is audited and kept
 * for `earlyWindowMs`, and a checkpoint raised meanwhile under that name (the tool asked for) or id, for the
 * same principal, is decided by it at once — under `strict` only if an approver connection made it.
 *
 * In a cluster (`link`), open checkpoints are recorded where every node finds them (a decision on another node
 * runs here, see Hub), approvers on every node hear of them, and early decisions are kept in Redis for any node.
 */
export class Governance {
  private readonly open = new Map<string, Checkpoint>()
  private readonly early = new Map<string, EarlyDecision>()

  constructor(
    private readonly sessions: SessionManager,
    private readonly audit: Audit,
    private readonly peers: () => Iterable<Peer>,
    private readonly earlyWindowMs: number,
    private readonly link: HubLink | null = null,
  ) {}

  /** A task's run asked for approval. */
  async requested(task: TaskRef, session: Session, e: Requested): Promise<void> {
    const artifact = { tool: e.toolName, description: e.toolDescription, arguments: e.args, reasoning: e.reasoning, risk: e.risk }
    await this.audit.record({
      action: 'checkpoint',
      actor: session.agentName,
      target: e.toolName,
      details: { checkpoint: e.approvalId, taskId: task.taskId, level: task.level, artifact: artifact as Json },
    })
    if (task.level === 'autonomous') {
      await session.handle({
        type: 'approval.response',
        sessionId: session.id,
        approvalId: e.approvalId,
        approved: true,
        feedback: 'auto-approved (autonomous governance)',
      })
      return
    }
    const notified = new Set([...this.peers()].filter((x) => x.approver && x.principal === session.owner))
    notified.add(task.requester)
    this.open.set(e.approvalId, { ...task, agent: session.agentName, name: e.toolName, owner: session.owner, notified })
    await this.link?.placeCheckpoint(e.approvalId, e.toolName, session.owner)
    if (await this.applyEarly(session, e, task.level)) return
    const msg = hugai.event('checkpoint', {
      checkpoint: e.approvalId,
      taskId: task.taskId,
      agent: session.agentName,
      level: task.level,
      artifact,
      timeoutMs: e.timeoutMs,
    })
    this.tell(session.owner, notified, msg)
  }

  /** Whether checkpoint `named` (an id, or a name for `principal`) is open on this node. */
  holds(named: string, principal: string): boolean {
    return this.sessions.findPending(named) !== undefined || this.pendingByName(named, principal) !== undefined
  }

  /** Sends `msg` to the peers told of a checkpoint and to `owner`'s approvers on the other nodes (cluster). */
  private tell(owner: string, notified: Set<Peer>, msg: object): void {
    for (const p of notified) p.push?.(msg)
    if (!this.link) return
    const skip: string[] = []
    for (const p of notified) if (p.origin) skip.push(p.id)
    this.link.approvers(owner, msg, skip)
  }

  /** A checkpoint was decided, timed out or withdrawn (task cancelled): everyone told of it hears how it ended. */
  async resolved(e: Resolved): Promise<void> {
    const cp = this.open.get(e.approvalId)
    if (!cp) return
    this.open.delete(e.approvalId)
    this.link?.forgetCheckpoint(e.approvalId)
    const msg = hugai.event('checkpoint-resolved', {
      checkpoint: e.approvalId,
      taskId: cp.taskId,
      approved: e.approved,
      by: e.by,
      feedback: e.feedback ?? null,
    })
    this.tell(cp.owner, cp.notified, msg)
    if (e.by !== 'user')
      await this.audit.record({
        action: 'checkpoint-resolved',
        actor: 'hub',
        target: e.approvalId,
        details: { taskId: cp.taskId, approved: e.approved, by: e.by },
      })
  }

  /**
   * `governance/approval`: decides a pending checkpoint, named by its id or its name (the tool it guards);
   * `needs_revision` rejects and returns the feedback to the agent. A decision naming nothing pending is
   * recorded (audit) and applies to a checkpoint raised under that name or id within `earlyWindowMs`.
   */
  async decide(peer: Peer, p: Params): Promise<unknown> {
    const named = String(p.checkpoint)
    let checkpoint = this.sessions.findPending(named) ? named : this.pendingByName(named, peer.principal)
    let session = checkpoint === undefined ? undefined : this.sessions.findPending(checkpoint)
    if (!session && this.link) {
      // An approval of another dialect's session written on another node (a hub checkpoint elsewhere was routed
      // there by the Hub): the session, loaded here as a replica, forwards the answer to its writer.
      const id = await this.sessions.locatePending(named)
      if (id !== undefined) {
        session = await this.sessions.open(id, peer.principal, { create: false })
        checkpoint = named
      }
    }
    if (!session || checkpoint === undefined) return this.keepEarly(peer, named, p)
    const cp = this.open.get(checkpoint)
    const sameOwner = session.owner === peer.principal
    const allowed = sameOwner && (peer.approver || cp?.level !== 'strict')
    if (!allowed) {
      const why = sameOwner ? 'strict governance: only an approver connection may decide this checkpoint' : 'this checkpoint belongs to someone else'
      throw new ParlanceError('forbidden', why, { checkpoint })
    }
    const decision = String(p.decision)
    const given = typeof p.feedback === 'string' && p.feedback !== '' ? p.feedback : undefined
    const feedback = decision === 'needs_revision' ? `needs revision${given ? `: ${given}` : ''}` : given
    await session.handle({
      type: 'approval.response',
      sessionId: session.id,
      approvalId: checkpoint,
      approved: decision === 'approved',
      ...(feedback ? { feedback } : {}),
    })
    await this.audit.record({
      action: 'approval',
      actor: String(p.approver),
      target: checkpoint,
      details: { decision, feedback: given ?? null, taskId: cp?.taskId ?? null, artifact: p.artifact as Json },
    })
    return { checkpoint, decision, recorded: true }
  }

  /** The oldest open checkpoint named `name` (the tool it guards) raised for `principal`. */
  private pendingByName(name: string, principal: string): string | undefined {
    for (const [id, cp] of this.open) if (cp.name === name && cp.owner === principal) return id
    return undefined
  }

  /** A decision for nothing pending: audited, and kept for a checkpoint raised later (the answer says which). */
  private async keepEarly(peer: Peer, checkpoint: string, p: Params): Promise<unknown> {
    const decision = String(p.decision)
    const feedback = typeof p.feedback === 'string' && p.feedback !== '' ? p.feedback : undefined
    await this.audit.record({
      action: 'approval',
      actor: String(p.approver),
      target: checkpoint,
      details: { decision, feedback: feedback ?? null, taskId: null, matched: false, artifact: p.artifact as Json },
    })
    if (this.earlyWindowMs <= 0) return { checkpoint, decision, recorded: true, matched: false }
    const d: EarlyDecision = {
      decision,
      feedback,
      approver: String(p.approver),
      principal: peer.principal,
      byApprover: peer.approver,
      at: Date.now(),
    }
    if (this.link) await this.link.keepEarly(checkpoint, d, MAX_EARLY)
    else {
      this.early.delete(checkpoint)
      if (this.early.size >= MAX_EARLY) this.early.delete(this.early.keys().next().value!)
      this.early.set(checkpoint, d)
    }
    return { checkpoint, decision, recorded: true, matched: false, appliesToCheckpointsRaisedWithinMs: this.earlyWindowMs }
  }

  /** A checkpoint just raised that an early decision names (by id or name, same principal, in time): decided now. */
  private async applyEarly(session: Session, e: Requested, level: GovernanceLevel): Promise<boolean> {
    const now = Date.now()
    for (const key of [e.approvalId, e.toolName]) {
      // Taken from Redis in a cluster (each decision applies once, on whichever node raises its checkpoint first).
      const d = this.link ? await this.link.takeEarly(key) : this.early.get(key)
      if (!d) continue
      if (now - d.at > this.earlyWindowMs) {
        this.early.delete(key)
        continue
      }
      if (d.principal !== session.owner || (level === 'strict' && !d.byApprover)) {
        await this.link?.returnEarly(key, d)
        continue
      }
      this.early.delete(key)
      const feedback = d.decision === 'needs_revision' ? `needs revision${d.feedback ? `: ${d.feedback}` : ''}` : d.feedback
      await session.handle({
        type: 'approval.response',
        sessionId: session.id,
        approvalId: e.approvalId,
        approved: d.decision === 'approved',
        ...(feedback ? { feedback } : {}),
      })
      await this.audit.record({
        action: 'approval',
        actor: d.approver,
        target: e.approvalId,
        details: {
          decision: d.decision,
          feedback: d.feedback ?? null,
          taskId: this.open.get(e.approvalId)?.taskId ?? null,
          matched: 'early',
          decidedAt: new Date(d.at).toISOString(),
          named: key,
        },
      })
      return true
    }
    return false
  }
}
