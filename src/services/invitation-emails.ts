import type { MailMessage } from '../adapters/mail/mailer.js';

// The link goes in the body only: subjects show up in logs and notification previews.
export function invitationEmail(input: { to: string; inviterName: string; orgName: string; role: string; url: string }): MailMessage {
  return {
    to: input.to,
    subject: `You are invited to join ${input.orgName}`,
    text:
      `Hello,\n\n${input.inviterName} invited you to join the organization "${input.orgName}" as ${input.role}.\n\n` +
      `Accept the invitation here (the link is valid for 7 days and works once):\n${input.url}\n\n` +
      `Sign in or create an account with this email address (${input.to}) to accept. If you did not expect this invitation, ignore this email.\n`,
  };
}
