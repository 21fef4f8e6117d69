import Type from 'typebox';
import { PASSWORD_MIN_LENGTH, USERNAME_PATTERN } from '../../core/auth/auth-service.js';
import { Nullable } from '../../core/nullable-schema.js';
import { ErrorSchema } from './common.js';

/** A nickname as sent (§1: 1 to 64 characters). */
export const Nickname = Type.String({ minLength: 1, maxLength: 64 });
/** An avatar URL as stored and sent (null: none). */
export const AvatarUrl = Nullable(Type.String({ maxLength: 2048 }));

/** `POST /auth/signup` body (§1): the username and password rules give 422 when broken. */
export const SignupBody = Type.Object({
  username: Type.String({ pattern: USERNAME_PATTERN }),
  password: Type.String({ minLength: PASSWORD_MIN_LENGTH }),
  nickname: Type.Optional(Nickname),
});

/** `POST /auth/login` body; no format rules, so a malformed name is just a failed login (401). */
export const LoginBody = Type.Object({
  username: Type.String(),
  password: Type.String(),
});

/** `POST /auth/guest` body: the device the guest account is bound to. */
export const GuestBody = Type.Object({ device_id: Type.String({ minLength: 1, maxLength: 256 }) });

/** `POST /auth/logout` answer: an empty object. */
export const LoggedOutSchema = Type.Object({});

/** `POST /auth/refresh` and `POST /auth/logout` body. */
export const RefreshBody = Type.Object({ refresh_token: Type.String({ maxLength: 512 }) });

/** `PATCH /auth/me` body: the profile fields leaderboards show. */
export const UpdateMeBody = Type.Object({
  nickname: Type.Optional(Nickname),
  avatar_url: Type.Optional(AvatarUrl),
});

/** The fields of a user's public profile, which every answer describing a user starts with. */
export const userProfileFields = {
  id: Type.Integer(),
  username: Type.String(),
  nickname: Type.String(),
  avatar_url: AvatarUrl,
};

/** A user's public profile. */
export const AuthUserSchema = Type.Object(userProfileFields);

/** The §1 `AuthResponse`. */
export const AuthResponseSchema = Type.Object({
  access_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer(),
  refresh_token: Type.String(),
  user: AuthUserSchema,
});

/** The `/auth/me` body: the profile with roles and effective permissions. */
export const MeSchema = Type.Object({
  ...userProfileFields,
  roles: Type.Array(Type.String()),
  permissions: Type.Array(Type.String()),
});

/** Error responses of the `/auth` routes (client credentials, tokens, bodies; 429 when rate limits are configured). */
export const authErrorResponses = {
  401: ErrorSchema,
  413: ErrorSchema,
  415: ErrorSchema,
  422: ErrorSchema,
  429: ErrorSchema,
};
