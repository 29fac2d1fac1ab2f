import type { ScenarioName } from '../core/args.js';
import { baseline } from './baseline.js';
import { capacity } from './capacity.js';
import { capacityNodes } from './capacity-nodes.js';
import { capacityProxy } from './capacity-proxy.js';
import type { Scenario } from './context.js';
import { cpuRate } from './cpu-rate.js';
import { fanout } from './fanout.js';
import { idle, idleHeld } from './idle.js';
import { openLoop } from './open-loop.js';
import { paths } from './paths.js';
import { races } from './races.js';
import { resume } from './resume.js';
import { scaleOut } from './scale-out.js';
import { standing } from './standing.js';
import { throughput } from './throughput.js';

export const SCENARIO_RUNNERS: Record<ScenarioName, Scenario> = {
  baseline,
  'resume-same': resume('same'),
  'resume-cross': resume('cross'),
  'resume-memory': resume('memory'),
  'resume-sqlite': resume('sqlite'),
  fanout,
  capacity: capacity('redis'),
  'capacity-memory': capacity('memory'),
  'capacity-sqlite': capacity('sqlite'),
  'capacity-get': capacity('redis', 'get'),
  'capacity-task': capacity('redis', 'task'),
  'capacity-proxy': capacityProxy,
  'capacity-nodes': capacityNodes,
  throughput,
  'open-loop': openLoop,
  'cpu-rate': cpuRate,
  idle,
  'idle-held': idleHeld,
  races,
  'scale-out': scaleOut,
  standing,
  paths: paths('redis'),
  'paths-memory': paths('memory'),
  'paths-sqlite': paths('sqlite'),
};
