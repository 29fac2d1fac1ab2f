import { type Audience, type Directory, HitlError, LIMITS, type Team } from '@hitl/protocol';

/** Whom an inquiry goes to: the member user ids, and the team they came from (if one was named). */
export interface ResolvedAudience {
  audience: string[];
  team?: string;
  /**
   * The team's escalation: after `afterMs` unanswered (absent: half the time the question has), `users`
   * (none of the audience) are added.
   */
  escalation?: { afterMs?: number; users: string[]; team?: string };
}

/**
 * Checks an agent's `audience` against the directory and returns its members (repeats removed, in
 * the order given). A team may be addressed only by its `askers` (default: its members); `{users}`
 * may name the asker's own user and members of teams the asker's user may address, so naming a
 * team's members one by one reaches no one its `askers` would refuse. Anything else is invalid input
 * naming `audience`, so the agent learns nothing more than that it may not ask there.
 * @throws HitlError `invalid_input`
 */
export function resolveAudience(
  directory: Directory,
  askerUserId: string,
  audience: Audience,
): ResolvedAudience {
  const refuse = (message: string): never => {
    throw new HitlError('invalid_input', `audience: ${message}`);
  };
  if (audience.team !== undefined) {
    const { team: teamId } = audience;
    const team = Object.hasOwn(directory.teams, teamId) ? directory.teams[teamId] : undefined;
    if (!team || !(team.askers ?? team.members).includes(askerUserId)) {
      return refuse(`no team "${teamId}" that user "${askerUserId}" may ask`);
    }
    const members = [...new Set(team.members)];
    if (members.length > LIMITS.audienceUsers) {
      return refuse(
        `team "${teamId}" has ${members.length} members; at most ${LIMITS.audienceUsers} can be asked at once`,
      );
    }
    const escalation = escalationOf(directory, team, members);
    return { audience: members, team: teamId, ...(escalation ? { escalation } : {}) };
  }
  const users = [...new Set(audience.users ?? [])];
  const reachable = reachableBy(directory, askerUserId);
  const refused = users.filter((userId) => userId !== askerUserId && !reachable.has(userId));
  if (refused.length > 0) {
    return refuse(`no user(s) ${refused.map((u) => `"${u}"`).join(', ')} that user "${askerUserId}" may ask`);
  }
  return { audience: users };
}

/** The users a team's `escalateTo` adds (those not asked already), or undefined when it adds none. */
function escalationOf(
  directory: Directory,
  team: Team,
  members: string[],
): ResolvedAudience['escalation'] | undefined {
  const target = team.escalateTo;
  if (!target) return undefined;
  const named = 'team' in target ? (directory.teams[target.team]?.members ?? []) : [target.user];
  const users = [...new Set(named)]
    .filter((userId) => !members.includes(userId))
    .slice(0, LIMITS.audienceUsers);
  if (users.length === 0) return undefined;
  return {
    ...(team.escalateAfterMs === undefined ? {} : { afterMs: team.escalateAfterMs }),
    users,
    ...('team' in target ? { team: target.team } : {}),
  };
}

/** The members of every team whose `askers` (default: its members) include `askerUserId`. */
function reachableBy(directory: Directory, askerUserId: string): Set<string> {
  const reachable = new Set<string>();
  for (const team of Object.values(directory.teams)) {
    if (!(team.askers ?? team.members).includes(askerUserId)) continue;
    for (const member of team.members) reachable.add(member);
  }
  return reachable;
}
