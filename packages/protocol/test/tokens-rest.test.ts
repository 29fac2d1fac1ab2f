import { describe, expect, it } from 'vitest';
import { AnswerBodySchema, LIMITS, ListInquiriesQuerySchema, TokenClaimsSchema } from '../src/index.js';
import { expectAccepted, expectNamesField, rejectionOf } from './zod-message.js';

describe('TokenClaimsSchema', () => {
  it('accepts each role and an email-like user id', () => {
    for (const role of ['agent', 'device', 'ops']) {
      expect(expectAccepted(TokenClaimsSchema, { sub: 'ann.lee@example.com', role }).role).toBe(role);
    }
  });

  it('rejects an unknown role, naming it', () => {
    expectNamesField(rejectionOf(TokenClaimsSchema, { sub: 'ann', role: 'admin' }), 'role');
  });

  it.each(['ann lee', 'ann/../bob', 'ann:1', ''])('rejects the user id %j', (sub) => {
    expectNamesField(rejectionOf(TokenClaimsSchema, { sub, role: 'agent' }), 'sub');
  });
});

describe('ListInquiriesQuerySchema', () => {
  it('coerces limit from a query string', () => {
    expect(expectAccepted(ListInquiriesQuerySchema, { limit: '25' }).limit).toBe(25);
  });

  it('defaults to pending inquiries, 50 at a time', () => {
    expect(expectAccepted(ListInquiriesQuerySchema, {})).toEqual({ status: 'pending', limit: 50 });
  });

  it(`accepts limit 1 and ${LIMITS.pageSize}`, () => {
    expect(expectAccepted(ListInquiriesQuerySchema, { limit: '1' }).limit).toBe(1);
    expect(expectAccepted(ListInquiriesQuerySchema, { limit: '200' }).limit).toBe(200);
  });

  it.each(['0', '201', 'ten', '2.5'])('rejects limit %j, naming it', (limit) => {
    expectNamesField(rejectionOf(ListInquiriesQuerySchema, { limit }), 'limit');
  });

  it('rejects an unknown status and a bad user', () => {
    expectNamesField(rejectionOf(ListInquiriesQuerySchema, { status: 'done' }), 'status');
    expectNamesField(rejectionOf(ListInquiriesQuerySchema, { user: 'a b' }), 'user');
  });
});

describe('AnswerBodySchema', () => {
  it('accepts text and a form object', () => {
    expect(expectAccepted(AnswerBodySchema, { response: 'yes' }).response).toBe('yes');
    const form = { env: 'prod', regions: ['eu'], replicas: 2, dryRun: false };
    expect(expectAccepted(AnswerBodySchema, { response: form }).response).toEqual(form);
  });

  it('rejects a missing response and text over the limit', () => {
    expectNamesField(rejectionOf(AnswerBodySchema, {}), 'response');
    expectNamesField(
      rejectionOf(AnswerBodySchema, { response: 'a'.repeat(LIMITS.answerChars + 1) }),
      'response',
    );
  });
});
