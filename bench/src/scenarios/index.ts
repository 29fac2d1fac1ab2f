import type { ScenarioName } from '../core/args.js';
import { baseline } from './baseline.js';
import { capacity } from './capacity.js';
import { capacityNodes } from './capacity-nodes.js';
import type { Scenario } from './context.js';
import { fanout } from './fanout.js';
import { openLoop } from './open-loop.js';
import { races } from './races.js';
import { resume } from './resume.js';
import { scaleOut } from './scale-out.js';
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
  'capacity-nodes': capacityNodes,
  throughput,
  'open-loop': openLoop,
  races,
  'scale-out': scaleOut,
};
