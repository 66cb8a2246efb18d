/**
 * What a 0.3 push config is sent: the task itself after each event, as 0.3 senders POST it (the
 * SDK's 0.3 push sender loads the task after every event). A task write carries its record and
 * events; the task after each event is the stored task it follows with the events applied in turn.
 */
import type { StreamResponse } from '../a2a/types.js';
import type { StoredTask, TaskRecord } from '../store/store.js';
import { appended } from './changes.js';

/** `prior`: the task as stored before the write; `record`: the row the write leaves. */
export function tasksAfterEach(prior: StoredTask, record: TaskRecord, events: readonly StreamResponse[]): StoredTask[] {
  const history = [...prior.history];
  const artifacts = [...prior.artifacts];
  return events.map((event) => {
    if ('message' in event) history.push(event.message);
    if ('artifactUpdate' in event) {
      const { artifact, append } = event.artifactUpdate;
      const at = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
      if (at < 0) artifacts.push(artifact);
      else artifacts[at] = append ? appended(artifacts[at]!, artifact) : artifact;
    }
    // A status message the write also kept in the history has no message event of its own: the record's count tells.
    if ('statusUpdate' in event && event.statusUpdate.status.message && history.length < record.messageCount)
      history.push(event.statusUpdate.status.message);
    return { record, history: [...history], artifacts: [...artifacts] };
  });
}
