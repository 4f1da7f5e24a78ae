/** The JMAP contract suite (test/contract/jmap-contract.ts) against the medium tier's in-process fake. */
import { jmapContract } from '../../contract/jmap-contract.js';

jmapContract('fake');
