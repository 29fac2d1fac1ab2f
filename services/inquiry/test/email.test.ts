import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InquiryResult } from '@hitl/protocol';
import { type ParsedMail, simpleParser } from 'mailparser';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectoryHolder } from '../src/directory/directory.js';
import { startTestNode, type TestNode } from './harness.js';

/** Email: a real SMTP server on loopback receives the mail; its link answers the inquiry. */

const structured = (r: unknown) => (r as { structuredContent: InquiryResult }).structuredContent;

/** A loopback SMTP server that keeps every message it accepts, parsed. */
async function startSmtp() {
  const mails: ParsedMail[] = [];
  const waiting: ((mail: ParsedMail) => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, done) {
      simpleParser(stream).then(
        (mail) => {
          const next = waiting.shift();
          if (next) next(mail);
          else mails.push(mail);
          done();
        },
        (error: Error) => done(error),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    /** The next mail, or a rejection after `ms`. */
    next(ms = 8000): Promise<ParsedMail> {
      const queued = mails.shift();
      if (queued) return Promise.resolve(queued);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no mail within ${ms} ms`)), ms);
        waiting.push((mail) => {
          clearTimeout(timer);
          resolve(mail);
        });
      });
    },
    get queued() {
      return mails.length;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('email with an answer link (real SMTP server, real node)', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let t: TestNode;
  let dir: string;
  const suffix = randomUUID().slice(0, 6);
  const now = `now-${suffix}`;
  const later = `later-${suffix}`;
  beforeAll(async () => {
    smtp = await startSmtp();
    dir = await mkdtemp(join(tmpdir(), 'hitl-directory-'));
    const file = join(dir, 'directory.yaml');
    await writeFile(
      file,
      [
        'users:',
        `  ${now}: {name: Ada, email: ada@example.com, notify: [email]}`,
        `  ${later}: {email: bob@example.com, notify: [push, email], emailAfterMs: 1500}`,
        `  quiet-${suffix}: {email: quiet@example.com}`,
      ].join('\n'),
    );
    t = await startTestNode('memory', {
      HITL_DIRECTORY_FILE: file,
      HITL_SMTP_URL: smtp.url,
      HITL_EMAIL_FROM: 'HITL <hitl@example.com>',
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('mails the question with its options and a link; the link answers it and the held call resumes', async () => {
    const agent = await t.mcp(now);
    const question = 'Which <b>size</b>? <img src="https://tracker.example/x.png">';
    const call = agent.callTool({ name: 'send_inquiry', arguments: { question, options: ['S', 'M'] } });
    const mail = await smtp.next();
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe('ada@example.com');
    expect(mail.subject).toContain('A question from test agent');
    expect(mail.text).toContain(question);
    expect(mail.text).toContain('  - M');
    // The HTML carries the agent text as text: no tag of its own, nothing loaded from elsewhere.
    expect(mail.html).toContain('&lt;img src=&quot;https://tracker.example/x.png&quot;&gt;');
    expect(mail.html).not.toMatch(/<img|<b>|src="/i);
    const link = mail.text?.match(/http:\/\/\S+\/a\/\S+/)?.[0] ?? '';
    expect(link.startsWith(`${t.url}/a/`)).toBe(true);
    expect(mail.html).toContain(`href="${link}"`);

    const answered = await fetch(link, { method: 'POST', body: new URLSearchParams([['response', 'M']]) });
    expect(answered.status).toBe(200);
    // Ops see that mail went out for this inquiry, and what the SMTP server said.
    const claims = await t.node.links.verify(link.split('/a/')[1] ?? '');
    const inquiryId = claims && claims !== 'expired' ? claims.inquiryId : '';
    const channels = (await (
      await t.rest(`/api/inquiries/${inquiryId}/channels`, { token: await t.token('ops', 'ops') })
    ).json()) as {
      items: { channel: string; url: string; status: string; attempts: { status?: number }[] }[];
    };
    expect(channels.items).toEqual([
      expect.objectContaining({ channel: 'email', url: 'mailto:ada@example.com', status: 'delivered' }),
    ]);
    expect(channels.items[0]?.attempts[0]?.status).toBe(250);
    expect(
      (await t.rest(`/api/inquiries/${inquiryId}/channels`, { token: await t.token(now, 'device') })).status,
    ).toBe(403);
    expect(structured(await call)).toMatchObject({
      status: 'answered',
      answer: 'M',
      resolvedBy: { kind: 'human', deviceName: 'email link' },
    });
  });

  it('emailAfterMs: no mail for a question answered in time; a mail once one has waited that long', async () => {
    const device = await t.device(later, 'desk');
    await device.synced;
    const agent = await t.mcp(later);
    const quick = agent.callTool({ name: 'send_inquiry', arguments: { question: 'Quick one?' } });
    const { inquiryId } = await device.nextNew();
    await device.emit('inquiry:answer', { inquiryId, response: 'done' });
    expect(structured(await quick).status).toBe('answered');

    const started = Date.now();
    void agent
      .callTool({ name: 'send_inquiry', arguments: { question: 'Slow one?', timeoutMs: 6000 } })
      .catch(() => undefined);
    const mail = await smtp.next();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(mail.text).toContain('Slow one?');
    expect(mail.to && !Array.isArray(mail.to) ? mail.to.text : '').toBe('bob@example.com');
  });

  it('mails nobody whose entry does not ask for it, nor anyone not in the directory', async () => {
    for (const user of [`quiet-${suffix}`, `stranger-${suffix}`]) {
      const agent = await t.mcp(user);
      void agent
        .callTool({ name: 'send_inquiry', arguments: { question: 'Mail?', timeoutMs: 2000 } })
        .catch(() => undefined);
    }
    await expect(smtp.next(2500)).rejects.toThrow(/no mail/);
  });
});

describe('the directory file', () => {
  it('a bad file stops the start naming the field; SIGHUP-style reload keeps the last good one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hitl-directory-'));
    const file = join(dir, 'directory.json');
    try {
      await writeFile(file, JSON.stringify({ users: { ann: { notify: ['email'] } } }));
      await expect(startTestNode('memory', { HITL_DIRECTORY_FILE: file })).rejects.toThrow(
        /HITL_DIRECTORY_FILE=.*users\.ann\.email: notify names email: give an address/s,
      );
      await writeFile(file, JSON.stringify({ users: { ann: { name: 'Ann' } } }));
      const holder = await DirectoryHolder.open(file, pino({ level: 'silent' }));
      expect(holder.user('ann')?.name).toBe('Ann');
      await writeFile(file, JSON.stringify({ users: { ann: { name: 'Annie' } } }));
      expect(await holder.reload()).toBe(true);
      expect(holder.user('ann')?.name).toBe('Annie');
      await writeFile(file, '{"users": {"ann": {"name": 7}}}');
      expect(await holder.reload()).toBe(false);
      expect(holder.user('ann')?.name).toBe('Annie');
      expect(holder.user('constructor')).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
