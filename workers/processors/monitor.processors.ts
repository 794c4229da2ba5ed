import { evaluateMonitors } from '../../shared/domains/monitors/evaluate-monitors.js';
import { exitMonitoredPosition } from '../../shared/domains/monitors/exit-position.js';
import type { Processor } from '../../shared/composition/processor.js';

export const evaluatePositionMonitorsProcessor: Processor<'evaluate-position-monitors'> = async (
  _data,
  { deps },
) => evaluateMonitors(deps, deps.clock());

export const exitMonitoredPositionProcessor: Processor<'exit-monitored-position'> = async (data, { deps }) =>
  exitMonitoredPosition(deps, data.monitorId, data.generation);
