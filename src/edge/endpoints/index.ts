import { clubDetail, clubHistory, clubList } from './clubs'
import { memberDetail, memberList } from './members'
import { favoriteDetail, favoriteList, subscriptionDetail, subscriptionList } from './saved-clubs'
import { tagList } from './tags'
import { userList, userMe } from './users'

/** Every API endpoint, each declared once. */
export const ENDPOINTS = [
  clubList,
  clubDetail,
  clubHistory,
  memberList,
  memberDetail,
  favoriteList,
  favoriteDetail,
  subscriptionList,
  subscriptionDetail,
  tagList,
  userList,
  userMe,
]
