/** What a person types next for a plan waiting for approval: `watch` and `plan` show the same line. */
export const approvalLine = (planId: string): string =>
  `Waiting for approval: planhub approve ${planId}  (or: planhub reject ${planId})`;
