/** The inspector API's shapes, shared by the server (`src/server/inspector-endpoint.ts`) and the page. */

/** One session as `GET /inspector/api/sessions` lists it. */
export interface SessionRow {
  id: string
  agent: string
  lastSeq: number
  activeRunId: string | null
  updatedAt?: number
  createdAt?: number
  /** Attached connections per dialect (the prefix of each subscriber's codec key). */
  connections?: Record<string, number>
  /** Present on a session made by `POST /sessions/:id/fork`: its parent and the last of the parent's events it copied. */
  forkedFrom?: { sessionId: string; atSeq: number }
}
