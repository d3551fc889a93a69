/** Selections shared by several routes: the REST body of each resource. */
export const USER = 'id email name platformRole emailVerified createdAt updatedAt';
export const STORE = 'id name role createdAt updatedAt';
export const MEMBER = 'userId email name role createdAt';
export const TOKEN = 'id kind name scopes app { id name } createdAt lastUsedAt expiresAt current last4';
export const APP = 'id name description homepageUrl redirectUris scopes createdAt updatedAt';
export const APP_REF = 'id name description homepageUrl';
