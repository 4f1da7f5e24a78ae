/**
 * Why a scheduled email did not go (or not yet): the `failure` of GET /api/scheduled-emails, a code
 * the frontend tells apart and a Slovak message it shows (docs/contract.md §4.5).
 */
export const reasons = {
  userDisabled: { code: 'user_disabled', message: 'Odosielateľ bol pred časom odoslania zablokovaný; email nebol odoslaný' },
  sendRightLost: { code: 'send_right_lost', message: 'Odosielateľ už nemá právo odosielať z tejto schránky; email nebol odoslaný' },
  accountRemoved: { code: 'account_removed', message: 'Emailový účet, z ktorého sa mal email odoslať, bol odstránený; email nebol odoslaný' },
  unknown: { code: 'outcome_unknown', message: 'Poštový server neodpovedal na odoslanie; overuje sa, či email odišiel (nikdy sa neodošle dvakrát)' },
  unsettled: { code: 'outcome_unknown', message: 'Poštový server ešte spracúva odoslanie; overuje sa, či email odišiel (nikdy sa neodošle dvakrát)' },
  internal: { code: 'internal_error', message: 'Email sa nepodarilo odoslať pre chybu servera' },
} as const;
