import type { RequestOptions } from '../http.js';
import type { ListOptions } from '../paginate.js';
import type { Agent, AgentCreate, AgentUpdate, AgentVersion, CreatedAgent, DeletedAgent } from '../types.js';
import { Resource, seg } from './base.js';

/** Agents (spec §4.1, §4.2). */
export class Agents extends Resource {
  list(opts: ListOptions & { includeInactive?: boolean } = {}): AsyncGenerator<Agent, void, undefined> {
    const { includeInactive, ...rest } = opts;
    return this.paged<Agent>('/agents', { include_inactive: includeInactive }, rest);
  }
  create(body: AgentCreate, opts?: RequestOptions): Promise<CreatedAgent> {
    return this.call('POST', '/agents', opts, body);
  }
  get(agentId: string, opts?: RequestOptions): Promise<Agent> {
    return this.call('GET', `/agents/${seg(agentId)}`, opts);
  }
  update(agentId: string, body: AgentUpdate, opts?: RequestOptions): Promise<Agent> {
    return this.call('PATCH', `/agents/${seg(agentId)}`, opts, body);
  }
  delete(agentId: string, opts?: RequestOptions): Promise<DeletedAgent> {
    return this.call('DELETE', `/agents/${seg(agentId)}`, opts);
  }
  rotateSecret(agentId: string, opts?: RequestOptions): Promise<CreatedAgent> {
    return this.call('POST', `/agents/${seg(agentId)}/rotate-secret`, opts);
  }
  version(agentId: string, version: number, opts?: RequestOptions): Promise<AgentVersion> {
    return this.call('GET', `/agents/${seg(agentId)}/versions/${seg(version)}`, opts);
  }
}
