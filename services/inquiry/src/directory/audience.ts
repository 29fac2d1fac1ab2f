import { type Audience, type Directory, HitlError, LIMITS } from '@hitl/protocol';

/** Whom an inquiry goes to: the member user ids, and the team they came from (if one was named). */
export interface ResolvedAudience {
  audience: string[];
  team?: string;
}

/**
 * Checks an agent's `audience` against the directory and returns its members (repeats removed, in
 * the order given). A team may be addressed only by its `askers` (default: its members); `{users}`
 * may name the asker's own user and users the directory knows (listed under `users` or a member of
 * some team). Anything else is invalid input naming `audience`, so the agent learns nothing more
 * than that it may not ask there.
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
    return { audience: members, team: teamId };
  }
  const users = [...new Set(audience.users ?? [])];
  const unknown = users.filter((userId) => userId !== askerUserId && !knows(directory, userId));
  if (unknown.length > 0) return refuse(`unknown user(s) ${unknown.map((u) => `"${u}"`).join(', ')}`);
  return { audience: users };
}

function knows(directory: Directory, userId: string): boolean {
  return (
    Object.hasOwn(directory.users, userId) ||
    Object.values(directory.teams).some((team) => team.members.includes(userId))
  );
}
