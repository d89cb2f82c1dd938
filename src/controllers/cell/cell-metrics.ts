/**
 * The cell controllers' own metrics (controllers.md §9, §10), registered on the registry of the
 * cell process's RuntimeMetrics — never a global one, so several cells in one process (the
 * embedded fleet) each keep their own.
 *
 * Guarantees: the identity gauges show exactly the current answer after `showIdentity`: every
 * series of an earlier answer is removed.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { LocationIdentity } from './identity.ts';

export class CellMetrics {
  readonly identitySource: Gauge<'source' | 'location'>;
  readonly identityMismatch: Gauge<'location'>;
  readonly identityWaiting: Gauge<'reason'>;
  readonly missingAllocations: Counter<'project'>;
  /** Counts the claims Bound now; the claim controller sets it to read its informer's store. */
  boundClaims: () => number = () => 0;

  constructor(registry: Registry) {
    const registers = [registry];
    this.identitySource = new Gauge({
      name: 'netpresence_cell_location_identity_source',
      help: 'The location this cell serves and where that answer came from (1 for the current answer)',
      labelNames: ['source', 'location'],
      registers,
    });
    this.identityMismatch = new Gauge({
      name: 'netpresence_cell_location_identity_mismatch',
      help: 'The delivered ServingLocation differs from the configured location (the delivered one wins)',
      labelNames: ['location'],
      registers,
    });
    this.identityWaiting = new Gauge({
      name: 'netpresence_cell_location_identity_waiting',
      help: 'The cell has no location identity, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.missingAllocations = new Counter({
      name: 'netpresence_network_interface_missing_allocations_total',
      help: 'Addresses found published on an interface with no matching IPAM allocation, once per finding',
      labelNames: ['project'],
      registers,
    });
    const countBound = () => this.boundClaims();
    new Gauge({
      name: 'netpresence_network_interface_claims_bound',
      help: 'Number of NetworkInterfaceClaims in this cell whose Bound condition is True',
      registers,
      collect() {
        this.set(countBound());
      },
    });
  }

  /** Sets the identity gauges to `identity` alone. */
  showIdentity(identity: LocationIdentity): void {
    this.identitySource.reset();
    this.identityMismatch.reset();
    this.identityWaiting.reset();
    if (!identity.resolved) {
      this.identityWaiting.set({ reason: identity.reason }, 1);
      return;
    }
    this.identitySource.set({ source: identity.source, location: identity.location }, 1);
    if (identity.mismatch !== undefined) this.identityMismatch.set({ location: identity.location }, 1);
  }
}
