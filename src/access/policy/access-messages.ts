/** The guard's refusals that other modules repeat word for word (the sign-in answers a non-member the same way). */
export const NO_ACCOUNT = 'Create or join an account first';
export const NOT_A_MEMBER = 'You are not a member of this account';
