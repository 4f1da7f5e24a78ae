/** The JMAP contract suite (test/contract/jmap-contract.ts) against the test Cyrus: what the fake is held to. */
import { jmapContract } from '../contract/jmap-contract.js';

jmapContract('Cyrus');
