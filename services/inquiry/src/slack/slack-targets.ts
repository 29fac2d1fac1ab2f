import type { Directory, Inquiry } from '@hitl/protocol';

/*
 * Where an inquiry goes in Slack (pure): a team with a `slackChannel` gets one message in that channel
 * (instead of its members' DMs); otherwise each person asked whose directory entry has a `slack`
 * member id and lists `slack` in `notify` gets a DM.
 */

export type SlackTarget =
  | { target: string; kind: 'channel'; channel: string }
  | { target: string; kind: 'dm'; memberId: string; userId: string };

/** Where the question goes when it is asked. */
export function createdTargets(inquiry: Inquiry, directory: Directory): SlackTarget[] {
  return targetsOf(directory, inquiry.team, inquiry.audience ?? [inquiry.userId]);
}

/** Where it goes once it escalated: the escalation's team channel, or its people's DMs. */
export function escalatedTargets(inquiry: Inquiry, directory: Directory): SlackTarget[] {
  const escalation = inquiry.escalation;
  return escalation ? targetsOf(directory, escalation.team, escalation.users) : [];
}

function targetsOf(directory: Directory, team: string | undefined, users: readonly string[]): SlackTarget[] {
  const channel =
    team !== undefined && Object.hasOwn(directory.teams, team)
      ? directory.teams[team]?.slackChannel
      : undefined;
  if (team !== undefined && channel) return [{ target: `team:${team}`, kind: 'channel', channel }];
  return users.flatMap((userId): SlackTarget[] => {
    const user = Object.hasOwn(directory.users, userId) ? directory.users[userId] : undefined;
    if (!user?.slack || !user.notify?.includes('slack')) return [];
    return [{ target: `user:${userId}`, kind: 'dm', memberId: user.slack, userId }];
  });
}

/** The directory user a Slack member id belongs to (the directory gives each member id to one user). */
export function userOfMember(directory: Directory, memberId: string): string | undefined {
  let index = memberIndexes.get(directory);
  if (!index) {
    index = new Map();
    for (const [userId, user] of Object.entries(directory.users)) {
      if (user.slack && !index.has(user.slack)) index.set(user.slack, userId);
    }
    memberIndexes.set(directory, index);
  }
  return index.get(memberId);
}

/** Member id → user, built once per directory (a reload makes a new directory object). */
const memberIndexes = new WeakMap<Directory, Map<string, string>>();
