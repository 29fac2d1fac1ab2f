import type { Redis } from 'ioredis';
import type { SlackPost, SlackStore } from './slack-store.js';

/**
 * The cluster's Slack records in Redis: an inquiry's posts in one hash under its hash tag
 * (`hitl:slack:{<id>}:posts`, target → JSON), and each claim a `SET NX` with its expiry
 * (`hitl:slack:claim:<key>`): one command, so one caller wins on any number of nodes.
 */
export class RedisSlackStore implements SlackStore {
  constructor(
    private readonly redis: Redis,
    private readonly now: () => number,
    private readonly prefix = 'hitl:',
  ) {}

  private postsKey(inquiryId: string): string {
    return `${this.prefix}slack:{${inquiryId}}:posts`;
  }

  async addPost(inquiryId: string, post: SlackPost, until: number): Promise<void> {
    const key = this.postsKey(inquiryId);
    // GT: a later post never shortens what an earlier one kept (NX sets the first expiry).
    await this.redis
      .multi()
      .hset(key, post.target, JSON.stringify(post))
      .pexpireat(key, until, 'NX')
      .pexpireat(key, until, 'GT')
      .exec();
  }

  async posts(inquiryId: string): Promise<SlackPost[]> {
    const all = await this.redis.hgetall(this.postsKey(inquiryId));
    return Object.keys(all)
      .sort()
      .map((target) => JSON.parse(all[target] ?? '{}') as SlackPost);
  }

  async claim(key: string, until: number): Promise<boolean> {
    const ttl = Math.max(1, until - this.now());
    const reply = await this.redis.set(`${this.prefix}slack:claim:${key}`, '1', 'PX', ttl, 'NX');
    return reply === 'OK';
  }
}
