import type { Inquiry, InquiryResponse, Resolution, ResolvedBy } from '@hitl/protocol';

export interface PresetTexts {
  timeout: string;
  refusal: string;
}

export interface DeviceRef {
  deviceId?: string;
  deviceName?: string;
}

/** What ends an inquiry, before any fallback strategy runs. */
export type Ending =
  | { type: 'answer'; response: InquiryResponse; device: DeviceRef }
  | { type: 'refusal'; device: DeviceRef }
  | { type: 'device-timer'; device: DeviceRef }
  | { type: 'service-timer' }
  | { type: 'cancel' };

function deviceFields(device: DeviceRef): Partial<ResolvedBy> {
  const fields: Partial<ResolvedBy> = {};
  if (device.deviceId) fields.deviceId = device.deviceId;
  if (device.deviceName) fields.deviceName = device.deviceName;
  return fields;
}

/**
 * The resolution an ending writes. With no fallback strategy (or `preset_text`) a timeout or refusal
 * carries the preset text, and `resolvedBy` says plainly that no human answered.
 */
export function resolutionFor(
  _inquiry: Inquiry,
  ending: Ending,
  texts: PresetTexts,
  now: number,
): Resolution {
  switch (ending.type) {
    case 'answer':
      return {
        status: 'answered',
        answer: ending.response,
        resolvedBy: { kind: 'human', ...deviceFields(ending.device) },
        resolvedAt: now,
      };
    case 'refusal':
      return {
        status: 'refused',
        answer: texts.refusal,
        resolvedBy: { kind: 'human', ...deviceFields(ending.device), strategy: 'preset_text' },
        resolvedAt: now,
      };
    case 'device-timer':
      return {
        status: 'timed_out',
        answer: texts.timeout,
        resolvedBy: { kind: 'device-timer', ...deviceFields(ending.device), strategy: 'preset_text' },
        resolvedAt: now,
      };
    case 'service-timer':
      return {
        status: 'timed_out',
        answer: texts.timeout,
        resolvedBy: { kind: 'service-timer', strategy: 'preset_text' },
        resolvedAt: now,
      };
    case 'cancel':
      return { status: 'cancelled', resolvedBy: { kind: 'agent' }, resolvedAt: now };
  }
}
