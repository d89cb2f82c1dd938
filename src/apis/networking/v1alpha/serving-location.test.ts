import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { locationBindingName } from './location-binding.ts';
import {
  locationPolicyName,
  publisherEventMessages,
  removalBlockedMessages,
  removalBlockedValue,
  servingLocationName,
} from './serving-location.ts';

describe('location names and publisher messages', () => {
  it('name a location binding and serving location after the location, and its policy location-<loc>', () => {
    assert.equal(locationBindingName('us-central-1'), 'us-central-1');
    assert.equal(servingLocationName('us-central-1'), 'us-central-1');
    assert.equal(locationPolicyName('us-central-1'), 'location-us-central-1');
  });

  it('list the clusters holding a removal in name order', () => {
    assert.equal(
      removalBlockedMessages.clustersStillServing(['cell-b', 'cell-a']),
      'clusters still labelled for this location: cell-a, cell-b',
    );
    assert.equal(
      removalBlockedValue('ClustersStillServing', removalBlockedMessages.clustersStillServing(['cell-a'])),
      'ClustersStillServing: clusters still labelled for this location: cell-a',
    );
    assert.equal(
      removalBlockedMessages.fleetNotFullyLabelled(['cell-c']),
      'no cluster claims this location, but 1 Ready cluster(s) carry no location label at all: cell-c',
    );
  });

  it('name the foreign policy and the location policy in a ForeignPolicyClaim', () => {
    assert.equal(
      publisherEventMessages.foreignPolicyClaim(
        'NetworkContext',
        'vpc-dfw',
        { kind: 'ClusterPropagationPolicy', name: 'everything' },
        'dfw',
      ),
      'NetworkContext "vpc-dfw" is claimed by ClusterPropagationPolicy "everything", not by ClusterPropagationPolicy "location-dfw", so it may reach cells that do not serve "dfw"',
    );
    assert.equal(
      publisherEventMessages.unlabelledHubObject('ServingLocation', 'dfw'),
      'ServingLocation "dfw" on the hub carries no networking.datumapis.com/published-by label and is not owned by this publisher',
    );
  });
});
