/** Selections shared by several routes: the REST body of each resource. */
export const USER = 'id email name platformRole emailVerified createdAt updatedAt';
export const STORE = 'id name role createdAt updatedAt';
export const MEMBER = 'userId email name role createdAt';
