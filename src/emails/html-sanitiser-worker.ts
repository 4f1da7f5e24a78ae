/**
 * The task the HTML render pool runs in its worker threads (html-render-pool.ts): the same sanitiser,
 * off the main thread. Arguments and result cross by structured clone (Map and Set included).
 */
import { sanitiseEmailHtml, type SanitisedHtml, type SanitiseOptions } from './html-sanitiser.js';

export default function sanitise(task: { dirty: string; options: SanitiseOptions }): SanitisedHtml {
  return sanitiseEmailHtml(task.dirty, task.options);
}
