import { AuditActions, type AuditService, type RequestMeta } from '../audit/audit-service.js';
import { CONTACT_NOT_FOUND } from '../contacts/contact-records.js';
import type { Transactions } from '../db/transactions.js';
import { sanitiseEmailHtml } from '../emails/html-sanitiser.js';
import { ForbiddenError, NotFoundError } from '../errors/app-errors.js';
import { PERSON_NOT_FOUND } from '../people/person-visibility.js';
import type { Page, PageRequest } from '../shared/pagination.js';
import { nameParts, renderTemplate, type PlaceholderValues, type TemplateParts } from './template-render.js';
import type { TemplateFields, TemplateRecord, TemplateRepository } from './template-repository.js';

export const TEMPLATE_NOT_FOUND = 'Šablóna neexistuje';
const NOT_YOURS = 'Zdieľanú šablónu môže meniť a mazať len jej autor alebo administrátor';

/** Who asks: their id, and whether they are an admin (who may change any shared template). */
export interface TemplateCaller {
  userId: string;
  isAdmin: boolean;
}

export interface TemplateInput {
  name: string;
  subject: string;
  text: string;
  html?: string | null;
  shared: boolean;
}

/** Whose values fill a template: a contact's, or a person's (issue 47, with the people area). */
export type RenderTarget = { contactId: string } | { personId: string };

export interface TemplateServiceDeps {
  templates: TemplateRepository;
  transactions: Transactions;
  audit: AuditService;
}

/**
 * Email templates (issue 47). A private template is its author's alone (anyone else: 404, admins
 * included: it is not theirs to see); a shared one every staff member lists and renders, but only
 * its author or an admin changes or deletes it (others: 403). Placeholders are checked when saved
 * (template-schemas.ts) and filled by renderTemplate.
 */
export class TemplateService {
  constructor(private readonly deps: TemplateServiceDeps) {}

  list(userId: string, page: PageRequest): Promise<Page<TemplateRecord>> {
    return this.deps.templates.list(userId, page);
  }

  async get(userId: string, id: string): Promise<TemplateRecord> {
    const found = await this.deps.templates.findVisible(userId, id);
    if (!found) throw new NotFoundError(TEMPLATE_NOT_FOUND);
    return found;
  }

  async create(caller: TemplateCaller, input: TemplateInput, meta: RequestMeta): Promise<TemplateRecord> {
    const fields = clean(input);
    return this.deps.transactions.run(async (tx) => {
      const created = await this.deps.templates.insert(caller.userId, fields, tx);
      await this.audit({ action: AuditActions.templateCreated, caller, template: created }, meta, tx);
      return created;
    });
  }

  async update(caller: TemplateCaller, id: string, changes: Partial<TemplateInput>, meta: RequestMeta): Promise<TemplateRecord> {
    return this.deps.transactions.run(async (tx) => {
      const current = await this.editable(caller, id, tx);
      const merged = { ...current, ...Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) } as TemplateInput;
      const updated = await this.deps.templates.update(id, clean(merged), tx);
      const changed = Object.keys(changes).filter((k) => changes[k as keyof TemplateInput] !== undefined);
      await this.audit({ action: AuditActions.templateUpdated, caller, template: updated, changed }, meta, tx);
      return updated;
    });
  }

  async remove(caller: TemplateCaller, id: string, meta: RequestMeta): Promise<void> {
    await this.deps.transactions.run(async (tx) => {
      const current = await this.editable(caller, id, tx);
      await this.deps.templates.remove(id, tx);
      await this.audit({ action: AuditActions.templateDeleted, caller, template: current }, meta, tx);
    });
  }

  /** The template filled with the values of a contact or a person the caller may see (404 for any other). */
  async render(userId: string, id: string, target: RenderTarget): Promise<TemplateParts> {
    const template = await this.get(userId, id);
    return renderTemplate(template, await this.values(userId, target));
  }

  /**
   * The placeholder values for one contact or person and the sender (one the caller may not see: 404).
   * A person fills the contact placeholders with the name and company GET /api/people/{id} shows.
   */
  async values(userId: string, target: RenderTarget): Promise<PlaceholderValues> {
    const { templates } = this.deps;
    const source = 'personId' in target ? await templates.personPlaceholderSource(userId, target.personId) : await templates.placeholderSource(userId, target.contactId);
    if (!source) throw new NotFoundError('personId' in target ? PERSON_NOT_FOUND : CONTACT_NOT_FOUND);
    const { firstName, lastName } = nameParts(source.contact_name);
    return {
      'contact.name': source.contact_name ?? '',
      'contact.firstName': firstName,
      'contact.lastName': lastName,
      'company.name': source.company_name ?? '',
      'user.firstName': source.first_name ?? '',
      'user.lastName': source.last_name ?? '',
    };
  }

  private async editable(caller: TemplateCaller, id: string, tx: Parameters<TemplateRepository['lockVisible']>[2]): Promise<TemplateRecord> {
    const current = await this.deps.templates.lockVisible(caller.userId, id, tx);
    if (!current) throw new NotFoundError(TEMPLATE_NOT_FOUND);
    if (current.userId !== caller.userId && !caller.isAdmin) throw new ForbiddenError(NOT_YOURS);
    return current;
  }

  private audit(what: { action: string; caller: TemplateCaller; template: TemplateRecord; changed?: string[] }, meta: RequestMeta, tx: Parameters<AuditService['record']>[2]) {
    const { action, caller, template: t, changed } = what;
    const details = { templateId: t.id, name: t.name, shared: t.shared, ...(t.userId !== caller.userId ? { authorId: t.userId } : {}), ...(changed ? { changed } : {}) };
    return this.deps.audit.record({ action, userId: caller.userId, details }, meta, tx);
  }
}

/** The fields as stored: HTML through the sanitiser of email bodies (placeholders in text survive it). */
function clean(input: TemplateInput): TemplateFields {
  const html = input.html ? sanitiseEmailHtml(input.html, { inlineImages: new Map(), remoteImages: true }).html : null;
  return { name: input.name, subject: input.subject, text: input.text, html, shared: input.shared };
}
