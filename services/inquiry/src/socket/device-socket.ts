import type { DeviceToServerEvents, ServerToDeviceEvents, TokenClaims } from '@hitl/protocol';
import type { Server, Socket } from 'socket.io';
import type { DeviceRef } from '../core/outcomes.js';

/** What the gateway keeps on each admitted socket (plain data: `fetchSockets()` carries it). */
export interface DeviceData {
  userId: string;
  /** The handshake token's claims: a revocation after the handshake is checked against them. */
  claims: TokenClaims;
  device: DeviceRef;
  /** A fingerprint of the handshake token (rate limits, the per-token socket cap). */
  tokenKey: string;
  /** When the handshake was admitted (epoch ms): the cap drops the oldest first. */
  connectedAt: number;
}

export type DeviceSocket = Socket<
  DeviceToServerEvents,
  ServerToDeviceEvents,
  Record<string, never>,
  DeviceData
>;
export type DeviceServer = Server<
  DeviceToServerEvents,
  ServerToDeviceEvents,
  Record<string, never>,
  DeviceData
>;

export const userRoom = (userId: string) => `user:${userId}`;
/** Every ops socket: it gets every user's inquiry events, on every node (the adapter). */
export const OPS_ROOM = 'ops';
export const tokenRoom = (tokenKey: string) => `token:${tokenKey}`;
