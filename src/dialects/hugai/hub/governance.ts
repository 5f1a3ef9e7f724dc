import { ParlanceError, type Json, type StoredEvent } from '../../../core/index.js'
import { hugai } from '../codec.js'
import { RPC } from '../errors.js'
import type { Session, SessionManager } from '../../../session/index.js'
import type { Audit } from './audit.js'
import { RpcFailure, type GovernanceLevel, type Params, type Peer } from './peer.js'

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
  notified: Set<Peer>
}

/**
 * Human checkpoints. A task's governance level is its requester's (`initialize.governanceLevel`):
 * `autonomous` → the hub approves itself (audited); `supervised` → a `checkpoint` event goes to the requester
 * and to every approver connection of the same principal, and the requester or an approver decides;
 * `strict` → as supervised, but only an approver connection may decide.
 */
export class Governance {
  private readonly open = new Map<string, Checkpoint>()

  constructor(
    private readonly sessions: SessionManager,
    private readonly audit: Audit,
    private readonly peers: () => Iterable<Peer>,
  ) {}

  /** A task's run asked for approval. */
  async requested(task: TaskRef, session: Session, e: Requested): Promise<void> {
    const artifact = { tool: e.toolName, description: e.toolDescription, arguments: e.args, reasoning: e.reasoning, risk: e.risk }
    await this.audit.record({ action: 'checkpoint', actor: session.agentName, target: e.toolName, details: { checkpoint: e.approvalId, taskId: task.taskId, level: task.level, artifact: artifact as Json } })
    if (task.level === 'autonomous') {
      await session.handle({ type: 'approval.response', sessionId: session.id, approvalId: e.approvalId, approved: true, feedback: 'auto-approved (autonomous governance)' })
      return
    }
    const notified = new Set([...this.peers()].filter((x) => x.approver && x.principal === session.owner))
    notified.add(task.requester)
    this.open.set(e.approvalId, { ...task, agent: session.agentName, notified })
    const msg = hugai.event('checkpoint', { checkpoint: e.approvalId, taskId: task.taskId, agent: session.agentName, level: task.level, artifact, timeoutMs: e.timeoutMs })
    for (const p of notified) p.push?.(msg)
  }

  /** A checkpoint was decided, timed out or withdrawn (task cancelled): everyone told of it hears how it ended. */
  async resolved(e: Resolved): Promise<void> {
    const cp = this.open.get(e.approvalId)
    if (!cp) return
    this.open.delete(e.approvalId)
    const msg = hugai.event('checkpoint-resolved', { checkpoint: e.approvalId, taskId: cp.taskId, approved: e.approved, by: e.by, feedback: e.feedback ?? null })
    for (const p of cp.notified) p.push?.(msg)
    if (e.by !== 'user') await this.audit.record({ action: 'checkpoint-resolved', actor: 'hub', target: e.approvalId, details: { taskId: cp.taskId, approved: e.approved, by: e.by } })
  }

  /** `governance/approval`: decides a pending checkpoint. `needs_revision` rejects and returns the feedback to the agent. */
  async decide(peer: Peer, p: Params): Promise<unknown> {
    const checkpoint = String(p.checkpoint)
    const session = this.sessions.findPending(checkpoint)
    if (!session) throw new RpcFailure({ code: RPC.approvalNotPending, message: `approval not pending: ${checkpoint}`, data: { code: 'not_found', checkpoint } })
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
    await session.handle({ type: 'approval.response', sessionId: session.id, approvalId: checkpoint, approved: decision === 'approved', ...(feedback ? { feedback } : {}) })
    await this.audit.record({
      action: 'approval',
      actor: String(p.approver),
      target: checkpoint,
      details: { decision, feedback: given ?? null, taskId: cp?.taskId ?? null, artifact: p.artifact as Json },
    })
    return { checkpoint, decision, recorded: true }
  }
}
