import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import type { OutgoingMail } from '../../lib/mailer.js';
import type { User } from './user.entity.js';
import { createCode } from './code.service.js';

const link = (config: Config, page: string, code: string) => `${config.publicUrl.replace(/\/+$/, '')}/${page}?token=${encodeURIComponent(code)}`;

/** Creates a verification code for the user's current email and the mail that carries it. */
export function verificationMail(em: EntityManager, config: Config, user: User): OutgoingMail {
  const { code } = createCode(em, user.id, 'verify_email', { email: user.email });
  return {
    to: user.email,
    subject: 'Confirm your email address',
    text: [
      `Hello ${user.name},`,
      '',
      'Confirm this email address for your Souk account by opening this link within 24 hours:',
      link(config, 'verify-email', code),
      '',
      'The link works once. If you did not ask for it, ignore this mail.',
      '',
      `(API: POST /v1/users/auth/verify-email/confirm with {"token": "<the token in the link>"})`,
    ].join('\n'),
  };
}

export function resetMail(em: EntityManager, config: Config, user: User): OutgoingMail {
  const { code } = createCode(em, user.id, 'reset_password', { email: user.email });
  return {
    to: user.email,
    subject: 'Reset your password',
    text: [
      `Hello ${user.name},`,
      '',
      'Someone asked to reset the password of your Souk account. Choose a new password within one hour here:',
      link(config, 'reset-password', code),
      '',
      'The link works once; using it signs you out everywhere. If it was not you, ignore this mail: your password stays as it is.',
      '',
      `(API: POST /v1/auth/web/reset-password-confirm with {"token": "<the token in the link>", "password": "..."})`,
    ].join('\n'),
  };
}
