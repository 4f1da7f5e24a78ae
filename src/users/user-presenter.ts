import type { User } from '../models/index.js';
import type { UserResponse } from './user-responses.js';

/** The user object of API responses: never a hash, never a temporary password. */
export function presentUser(user: User): UserResponse {
  return {
    id: user.id,
    username: user.username,
    firstName: user.firstName,
    lastName: user.lastName,
    role: user.role,
    changedPassword: user.changedPassword,
    lastLogin: user.lastLogin,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt,
  };
}
